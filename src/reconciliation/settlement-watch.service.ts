import type { Config } from '../config';
import type { Db } from '../db';
import { uuidv7 } from '../ids';
import type { Logger } from '../logger';
import type { SettlementWatchMetrics } from '../metrics/settlement-watch.metrics';
import { formatKobo } from '../money';
import type { PaymentProvider } from '../provider/payment-provider';
import { lookupProviderTransaction } from '../provider/transaction-lookup';
import type { FindingKind } from './findings';
import { createReconciliationExceptionsRepo } from './reconciliation-exceptions.repo';
import { createSettlementWatchRepo, type WatchedReference, type WatchedSettlement } from './settlement-watch.repo';
import type { SettlementWatchResult } from '../contracts/convergence-check.contract';

/** The kinds a payout the ledger does not count is raised as: one open finding per provider transaction among them. */
const PAID_WITHOUT_DEBIT: FindingKind[] = ['settlement_paid_not_debited', 'settlement_paid_twice'];

/**
 * Keeps asking the provider about every settlement reference the ledger says can no longer pay (failed
 * or refunded, and every reference of a settlement failed or refunded) for
 * SETTLEMENT_FAILED_REFERENCE_WATCH after its failure, because a provider may still pay one: a failed
 * reference that turns SUCCESS is money out of the platform's float that no debit answers. Such a
 * payout is raised at once as an alert finding (paid twice when another reference of the settlement
 * paid, else paid not debited), without waiting for a reconciliation run, which classifies the same
 * provider transaction the same way and meets the same finding.
 */
export function createSettlementWatchService(deps: {
  db: Db;
  provider: PaymentProvider;
  logger: Logger;
  metrics: SettlementWatchMetrics;
  config: Pick<Config, 'SETTLEMENT_FAILED_REFERENCE_WATCH' | 'SETTLEMENT_WATCH_MAX_INTERVAL' | 'SETTLEMENT_WATCH_LOOKUPS'>;
}) {
  const { db, provider, logger, metrics, config } = deps;
  const watch = createSettlementWatchRepo(db);
  const exceptions = createReconciliationExceptionsRepo(db);

  function kindOf(settlement: WatchedSettlement, providerRef: string): FindingKind {
    return settlement.status === 'success' && settlement.settledReference !== providerRef
      ? 'settlement_paid_twice'
      : 'settlement_paid_not_debited';
  }

  async function raise(reference: WatchedReference, paid: { transactionId: string; grossAmountKobo: string }): Promise<boolean> {
    const settlement = await watch.settlementOf(reference);
    if (!settlement) return false;
    const kind = kindOf(settlement, reference.providerRef);
    const details = {
      providerStatus: 'SUCCESS',
      merchantTxRef: reference.providerRef,
      providerAmount: formatKobo(BigInt(paid.grossAmountKobo)),
      attemptOutcome: settlement.attemptOutcome,
      settlementStatus: settlement.status,
      settlementAmount: formatKobo(settlement.amount),
      ...(settlement.settledReference ? { settledReference: settlement.settledReference } : {}),
      raisedBy: 'settlement_watch',
    };
    const raised = await db.transaction((trx) =>
      exceptions.raise(
        trx,
        {
          id: uuidv7(),
          tenantId: settlement.tenantId,
          kind,
          subject: paid.transactionId,
          accountId: settlement.accountId,
          settlementId: settlement.settlementId,
          providerTxnId: paid.transactionId,
          details,
        },
        PAID_WITHOUT_DEBIT,
      ),
    );
    if (raised) {
      metrics.raised(kind);
      logger.error(
        { kind, settlementId: settlement.settlementId, ...details },
        'the provider paid a settlement reference the ledger does not count as paid',
      );
    }
    return raised;
  }

  return {
    /**
     * One pass: at most SETTLEMENT_WATCH_LOOKUPS due references, within `budgetMs`; each is scheduled
     * again by its back-off whatever the answer. Stops at the first outage (the provider is down).
     */
    async tick(options: { budgetMs: number; signal?: AbortSignal; onProgress?: () => void }): Promise<SettlementWatchResult> {
      const deadline = Date.now() + options.budgetMs;
      const result: SettlementWatchResult = { checked: 0, unavailable: 0, raised: 0 };
      for (const reference of await watch.due(config.SETTLEMENT_FAILED_REFERENCE_WATCH, config.SETTLEMENT_WATCH_LOOKUPS)) {
        if (Date.now() >= deadline || options.signal?.aborted) break;
        const lookup = await lookupProviderTransaction(provider, logger, reference.providerRef);
        if (lookup.kind === 'unavailable') {
          metrics.lookup('unavailable');
          await watch.scheduleNext(reference, false, config.SETTLEMENT_WATCH_MAX_INTERVAL);
          result.unavailable += 1;
          break;
        }
        result.checked += 1;
        if (lookup.kind === 'found' && lookup.status === 'SUCCESS') {
          metrics.lookup('success');
          if (await raise(reference, lookup)) result.raised += 1;
        } else metrics.lookup(lookup.kind === 'found' ? 'other' : 'not_found');
        await watch.scheduleNext(reference, true, config.SETTLEMENT_WATCH_MAX_INTERVAL);
        options.onProgress?.();
      }
      return result;
    },
  };
}

export type SettlementWatchService = ReturnType<typeof createSettlementWatchService>;
