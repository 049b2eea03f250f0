import { findAccountById } from '../accounts/accounts.access';
import type { Db } from '../db';
import { isAlreadyAnswered, isDuplicatePaymentCredit } from '../ledger/ledger-constraints';
import { uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import { createOutboxRepo } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { createLedgerRepo } from '../ledger/ledger.repo';
import type { EventedLedger } from '../events/ledger-events';
import type { Logger } from '../logger';
import { formatKobo } from '../money';
import { FOUND_BY_RECONCILIATION, recordInboundEvent } from '../payment-ingest/inbound-events.access';
import type { PaymentCrediter } from '../payment-ingest/payment-credit';
import type { SettlementExecutionService } from '../settlements/settlement-execution.service';
import type { SplitRulesService } from '../split-rules/split-rules.service';
import { findSettlementById } from '../settlements/settlements.access';
import { createReconciliationExceptionsRepo } from './reconciliation-exceptions.repo';
import { createReconciliationMatchingRepo, type PendingAction } from './reconciliation-matching.repo';
import { createReconciliationRunsRepo } from './reconciliation-runs.repo';

export const RESTORED_NARRATION = 'restored by reconciliation: the provider confirmed this payment after the confirmation window';
/** Why a payment.restored event gave the money back. */
export const RESTORED_REASON = 'the provider shows this payment paid after its confirmation window';

/** A staged repair someone else has made meanwhile (a late webhook, a concurrent run). */
class AlreadyRepaired extends Error {}

/**
 * The repairs a run stages, made through the paths of the events that were missed, each in its own
 * transaction with the staged row it settles (and the run's counters), so a retried activity or a
 * concurrent run repairs nothing twice: the ledger's unique indexes decide who made it.
 */
export function createReconciliationRepairs(deps: {
  db: Db;
  logger: Logger;
  postingEngine: EventedLedger;
  creditPayment: PaymentCrediter;
  settlementExecution: SettlementExecutionService;
  splits: Pick<SplitRulesService, 'rulesOf' | 'moveConfirmed'>;
  jobs: Jobs;
  starter: WorkflowStarter;
}) {
  const { db, logger, postingEngine, creditPayment, settlementExecution, splits, jobs, starter } = deps;
  const runs = createReconciliationRunsRepo(db);
  const matching = createReconciliationMatchingRepo(db);
  const exceptions = createReconciliationExceptionsRepo(db);

  /** Settles one staged row's action without a repair: someone else (a late webhook, a concurrent run) already made it. */
  async function alreadyDone(runId: string, action: PendingAction, runIds: string[]): Promise<false> {
    await db.transaction(async (trx) => {
      await matching.markActionDone(trx, runId, action.providerTxnId, 'matched');
      await runs.bump(trx, runIds, 'matched');
    });
    return false;
  }

  /** A payment the provider shows and the ledger lacks: credited exactly as its webhook would have been. */
  async function credit(runId: string, action: PendingAction, runIds: string[]): Promise<boolean> {
    try {
      const jobs = await db.transaction(async (trx) => {
        const account = await findAccountById(trx, action.accountId);
        if (!account) throw new Error(`account ${action.accountId} vanished during reconciliation run ${runId}`);
        const eventId = uuidv7();
        await recordInboundEvent(trx, {
          id: eventId,
          requestId: null,
          eventType: 'reconciliation',
          category: 'payment',
          signatureValid: false,
          tenantId: account.tenantId,
          accountId: account.id,
          transactionId: action.providerTxnId,
          aliasAccountRef: account.accountRef,
          grossAmount: action.amount,
          fee: action.fee,
          senderName: action.senderName,
          payload: {
            source: 'reconciliation',
            runId: runId,
            transaction: {
              id: action.providerTxnId,
              status: action.rawStatus,
              amount: formatKobo(action.amount),
              fee: formatKobo(action.fee),
              time: action.timeCreated,
            },
          },
          flags: [FOUND_BY_RECONCILIATION],
        });
        const posted = await creditPayment(trx, account, {
          gross: action.amount,
          fee: action.fee,
          senderName: action.senderName,
          narration: action.narration,
          transactionId: action.providerTxnId,
          inboundEventId: eventId,
          receivedAt: new Date(),
        });
        await matching.attachEntry(trx, eventId, posted.entry.id);
        await exceptions.recordRepair(
          trx,
          {
            id: uuidv7(),
            tenantId: account.tenantId,
            kind: 'missing_credit',
            subject: action.providerTxnId,
            accountId: account.id,
            entryId: posted.entry.id,
            providerTxnId: action.providerTxnId,
            details: {
              providerStatus: action.rawStatus,
              providerAmount: formatKobo(action.amount),
              providerFee: formatKobo(action.fee),
              providerTime: action.timeCreated,
            },
          },
          runIds,
          posted.entry.id,
        );
        await matching.markActionDone(trx, runId, action.providerTxnId, 'repaired');
        await runs.bump(trx, runIds, 'repaired');
        return posted.jobs;
      });
      starter.kick(jobs);
      return true;
    } catch (error) {
      if (isDuplicatePaymentCredit(error)) return alreadyDone(runId, action, runIds);
      throw error;
    }
  }

  /**
   * A credit reversed because the provider did not know it when its window closed, which the provider
   * now shows SUCCESS for the same amount: a new confirmed credit that answers the reversal (the ledger
   * stays append-only; the statement shows credit, reversal, restoration), and payment.restored for the
   * tenant after the group's payment.reversed. The ledger judges it as a new payment (KYC limits, a dynamic
   * account's policy, the account's closing), and, being confirmed, it is split by the account's rule as a
   * confirmation splits a payment: the rule read and share-locked, every account involved locked first
   * (customers, then accounts, in id order, as the confirmation takes them), in this one transaction.
   */
  async function restore(runId: string, action: PendingAction, runIds: string[]): Promise<boolean> {
    try {
      return await db.transaction(async (trx) => {
        const original = action.entryId ? await createLedgerRepo(trx).findEntry(action.entryId, trx) : undefined;
        const reversal = original ? await createLedgerRepo(trx).findReversalOf(original.id, trx) : undefined;
        if (!original || original.status !== 'reversed' || !reversal) throw new AlreadyRepaired();
        const rules = await splits.rulesOf([original.accountId], trx);
        const receiving = rules.get(original.accountId)?.parts.map((part) => part.toAccountId) ?? [];
        await postingEngine.lockAccounts(trx, [original.accountId, ...receiving]);
        const { entry: restored, held } = await postingEngine.restoreReversedCredit(trx, original, reversal, {
          narration: RESTORED_NARRATION,
          reason: RESTORED_REASON,
        });
        await splits.moveConfirmed(
          trx,
          [
            {
              entryId: restored.id,
              accountId: restored.accountId,
              amount: restored.amount,
              fee: restored.fee,
              held,
              providerTxnRef: action.providerTxnId,
            },
          ],
          rules,
        );
        await exceptions.recordRepair(
          trx,
          {
            id: uuidv7(),
            tenantId: original.tenantId,
            kind: 'reversed_credit_restored',
            subject: action.providerTxnId,
            accountId: original.accountId,
            entryId: original.id,
            providerTxnId: action.providerTxnId,
            details: { providerStatus: action.rawStatus, providerAmount: formatKobo(action.amount), reversalEntryId: reversal.id },
          },
          runIds,
          restored.id,
        );
        await matching.markActionDone(trx, runId, action.providerTxnId, 'repaired');
        await runs.bump(trx, runIds, 'repaired');
        return true;
      });
    } catch (error) {
      if (error instanceof AlreadyRepaired || isAlreadyAnswered(error)) return alreadyDone(runId, action, runIds);
      throw error;
    }
  }

  /**
   * A successful settlement whose succeeded attempt the provider's listing shows refunded: the
   * settlement's own refund rule decides (it reverses the debit only when the provider's lookup of
   * that attempt says REFUND). Either way the settlement is handed to the per-event refund workflow a
   * payout_refund webhook would have started (keyed by this run): it finds the refund applied and
   * brings SettlementStatus in line, or re-checks with back-off while the lookup does not agree yet.
   */
  async function refund(runId: string, action: PendingAction, runIds: string[]): Promise<boolean> {
    const settlement = action.settlementId ? await findSettlementById(db, action.settlementId) : undefined;
    // No check of the settlement's status here: after a crash between the refund and this run's record of
    // it, the retry must still record it and start the workflow that shows it.
    if (!settlement || !action.merchantTxRef) return alreadyDone(runId, action, runIds);
    const providerRef = action.merchantTxRef;
    const check = await settlementExecution.refund(settlement.id, providerRef);
    if (check.kind === 'not_applicable' || check.kind === 'attempt_refunded') return alreadyDone(runId, action, runIds);
    const refundJob = jobs.settlementRefund({
      settlementId: settlement.id,
      merchantTxRef: settlement.merchantTxRef,
      providerRef,
      eventId: `reconciliation-${runId}`,
      tenantId: settlement.tenantId,
      accountRef: settlement.accountRef,
    });
    const applied = check.kind === 'refunded';
    await db.transaction(async (trx) => {
      await createOutboxRepo(trx).enqueue([refundJob]);
      if (applied) {
        await exceptions.recordRepair(
          trx,
          {
            id: uuidv7(),
            tenantId: settlement.tenantId,
            kind: 'settlement_refunded',
            subject: action.providerTxnId,
            accountId: settlement.accountId,
            entryId: settlement.debitEntryId,
            settlementId: settlement.id,
            providerTxnId: action.providerTxnId,
            details: {
              providerStatus: action.rawStatus,
              merchantTxRef: settlement.merchantTxRef,
              attemptReference: providerRef,
              amount: formatKobo(settlement.amount),
            },
          },
          runIds,
          await matching.settlementReversal(trx, settlement.id),
        );
      }
      await matching.markActionDone(trx, runId, action.providerTxnId, applied ? 'repaired' : 'in_flight');
      await runs.bump(trx, runIds, applied ? 'repaired' : 'in_flight');
    });
    starter.kick([refundJob]);
    if (applied) logger.info({ runId, merchantTxRef: settlement.merchantTxRef }, 'reconciliation refunded a settlement');
    else
      logger.info(
        { runId, merchantTxRef: settlement.merchantTxRef, check },
        'the listing shows a refund the lookup does not yet: the refund workflow re-checks',
      );
    return applied;
  }

  /** Makes every repair the run has staged and not yet made (including those a crashed attempt left). */
  async function drainActions(runId: string, onProgress: () => void): Promise<number> {
    let repaired = 0;
    for (;;) {
      const actions = await matching.pendingActions(runId, 100);
      if (actions.length === 0) return repaired;
      for (const action of actions) {
        const runIds = await runs.runAndChild(runId, action.tenantId);
        const made =
          action.action === 'credit'
            ? await credit(runId, action, runIds)
            : action.action === 'restore'
              ? await restore(runId, action, runIds)
              : await refund(runId, action, runIds);
        if (made) repaired += 1;
        onProgress();
      }
    }
  }

  return {
    /** Makes every repair the run has staged and not yet made; how many it made. */
    drain: drainActions,
  };
}
