import { createAccountsRepo } from '../accounts/accounts.repo';
import type { Db, Trx } from '../db';
import type { PostingEngine } from '../ledger/posting-engine';
import type { Logger } from '../logger';
import { ProviderRejectedError, ProviderUnavailableError } from '../provider/errors';
import type { ProviderClient } from '../provider/provider.types';
import { lookupProviderTransaction } from '../provider/transaction-lookup';
import type { DestinationCheck, ProviderTxnLookup, SettlementWorkflowStatus, SubmissionResult } from '../temporal/payloads';
import { attemptReference } from './merchant-tx-ref';
import { createSettlementsRepo, type SettlementRecord, type SettlementStatus } from './settlements.repo';

const OPEN: SettlementStatus[] = ['pending', 'processing'];

export class SettlementNotFoundError extends Error {
  constructor(settlementId: string) {
    super(`settlement ${settlementId} does not exist`);
    this.name = 'SettlementNotFoundError';
  }
}

/**
 * The settlement rules the workflow's activities apply. Every state change is conditional on the
 * current state, under the settlement's row lock, so a retried or racing activity changes nothing twice.
 */
export function createSettlementExecutionService(deps: { db: Db; provider: ProviderClient; postingEngine: PostingEngine; logger: Logger }) {
  const { db, provider, postingEngine, logger } = deps;
  const settlements = createSettlementsRepo(db);

  async function load(settlementId: string): Promise<SettlementRecord> {
    const settlement = await settlements.findById(settlementId);
    if (!settlement) throw new SettlementNotFoundError(settlementId);
    return settlement;
  }

  /** Runs `change` under the settlement's lock when its status is one of `from`; otherwise reports the status. */
  async function transition(
    settlementId: string,
    from: SettlementStatus[],
    change: (trx: Trx, settlement: SettlementRecord) => Promise<SettlementStatus>,
  ): Promise<SettlementWorkflowStatus> {
    return db.transaction(async (trx) => {
      const settlement = await createSettlementsRepo(trx).lockById(settlementId);
      if (!settlement) throw new SettlementNotFoundError(settlementId);
      return from.includes(settlement.status) ? change(trx, settlement) : settlement.status;
    });
  }

  async function reverseDebit(trx: Trx, settlement: SettlementRecord, status: 'failed' | 'refunded', reason: string): Promise<SettlementStatus> {
    const reversal = await postingEngine.reverse(trx, settlement.debitEntryId, `${status === 'failed' ? 'settlement failed' : 'settlement refunded'}: ${reason}`);
    await createSettlementsRepo(trx).update(settlement.id, { status, failureReason: reason, ...(reversal ? { reversalEntryId: reversal.reversal.id } : {}) });
    logger.info({ settlementId: settlement.id, merchantTxRef: settlement.merchantTxRef, status, reason }, 'settlement debit reversed');
    return status;
  }

  return {
    /** Confirms the destination's name once (a transfer to a wrong account cannot be taken back). */
    async checkDestination(settlementId: string): Promise<DestinationCheck> {
      const settlement = await load(settlementId);
      if (!OPEN.includes(settlement.status)) return { kind: 'closed', status: settlement.status };
      if (settlement.accountName) return { kind: 'ok' };
      try {
        const found = await provider.lookupAccount({ accountNumber: settlement.accountNumber, bankCode: settlement.bankCode });
        if (!found) return { kind: 'invalid', reason: 'destination account not found' };
        await settlements.update(settlementId, { accountName: found.accountName });
        return { kind: 'ok' };
      } catch (error) {
        if (error instanceof ProviderRejectedError) return { kind: 'invalid', reason: `destination rejected by the provider: ${error.description}` };
        throw error;
      }
    },

    /** One submission under the attempt's own reference; a repeat of the same attempt reuses it (the provider dedups). */
    async submitAttempt(settlementId: string, attemptNo: number): Promise<SubmissionResult> {
      const providerRef = attemptReference((await load(settlementId)).merchantTxRef, attemptNo);
      const open = await transition(settlementId, OPEN, async (trx, settlement) => {
        await createSettlementsRepo(trx).update(settlementId, { status: 'processing', attemptCount: Math.max(settlement.attemptCount, attemptNo) });
        await createSettlementsRepo(trx).upsertAttempt(settlementId, attemptNo, providerRef, 'submitting');
        return 'processing';
      });
      if (open !== 'processing') return { kind: 'settlement_closed' };
      const settlement = await load(settlementId);
      const account = await createAccountsRepo(db).findById(settlement.accountId);
      try {
        const transfer = await provider.submitTransfer({
          amountKobo: settlement.amount,
          accountNumber: settlement.accountNumber,
          accountName: settlement.accountName ?? '',
          bankCode: settlement.bankCode,
          merchantTxRef: providerRef,
          senderName: account?.bankAccountName ?? '',
          ...(settlement.narration ? { narration: settlement.narration } : {}),
        });
        await settlements.upsertAttempt(settlementId, attemptNo, providerRef, 'accepted', { providerTransferId: transfer.id });
        await settlements.update(settlementId, { providerTransferId: transfer.id });
        return { kind: 'accepted', providerTransferId: transfer.id };
      } catch (error) {
        if (error instanceof ProviderRejectedError) {
          await settlements.upsertAttempt(settlementId, attemptNo, providerRef, 'failed', { text: error.description });
          return { kind: 'rejected', reason: error.description };
        }
        if (error instanceof ProviderUnavailableError) {
          await settlements.upsertAttempt(settlementId, attemptNo, providerRef, 'ambiguous', { text: error.message });
          return { kind: 'ambiguous', reason: error.message };
        }
        throw error;
      }
    },

    lookup(providerRef: string): Promise<ProviderTxnLookup> {
      return lookupProviderTransaction(provider, logger, providerRef);
    },

    async markAttemptFailed(settlementId: string, attemptNo: number, reason: string): Promise<void> {
      const settlement = await load(settlementId);
      await settlements.upsertAttempt(settlementId, attemptNo, attemptReference(settlement.merchantTxRef, attemptNo), 'failed', { text: reason });
    },

    /** SUCCESS: the debit is confirmed; the provider's own fee is recorded on the settlement, not debited. */
    complete(settlementId: string, attemptNo: number, providerFeeKobo: string | null): Promise<SettlementWorkflowStatus> {
      return transition(settlementId, OPEN, async (trx, settlement) => {
        await postingEngine.confirm(trx, settlement.debitEntryId);
        const repo = createSettlementsRepo(trx);
        await repo.update(settlementId, { status: 'success', providerFee: providerFeeKobo === null ? null : BigInt(providerFeeKobo) });
        await repo.upsertAttempt(settlementId, attemptNo, attemptReference(settlement.merchantTxRef, attemptNo), 'success');
        return 'success';
      });
    },

    /** Compensation after the last failed attempt (or an invalid destination): the balance is restored. */
    fail(settlementId: string, reason: string): Promise<SettlementWorkflowStatus> {
      return transition(settlementId, OPEN, (trx, settlement) => reverseDebit(trx, settlement, 'failed', reason));
    },

    /** The provider reversed a transfer it had accepted: at any point before or after success. */
    refund(settlementId: string, reason: string): Promise<SettlementWorkflowStatus> {
      return transition(settlementId, [...OPEN, 'success'], (trx, settlement) => reverseDebit(trx, settlement, 'refunded', reason));
    },
  };
}

export type SettlementExecutionService = ReturnType<typeof createSettlementExecutionService>;
