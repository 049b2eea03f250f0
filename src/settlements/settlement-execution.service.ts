import { findAccountById } from '../accounts/accounts.access';
import type { Config } from '../config';
import type { Db, Trx } from '../db';
import type { EventedLedger } from '../events/ledger-events';
import type { Logger } from '../logger';
import { formatKobo } from '../money';
import { isDuplicateReference, isNotCreatedRefusal, ProviderRejectedError, ProviderUnavailableError } from '../provider/errors';
import type { PaymentProvider } from '../provider/payment-provider';
import { lookupProviderTransaction } from '../provider/transaction-lookup';
import { attemptReference } from './merchant-tx-ref';
import {
  createSettlementsRepo,
  type AttemptOutcome,
  type SettlementAttempt,
  type SettlementRecord,
  type SettlementStatus,
} from './settlements.repo';
import type {
  AttemptProgress,
  DestinationCheck,
  OverdueOutcome,
  OverdueReport,
  RefundCheck,
  SettlementResumePoint,
  SettlementWorkflowStatus,
  SubmissionResult,
} from '../contracts/settlement.contract';
import { uuidv7 } from '../ids';
import type { RaiseSettlementFinding } from './settlement-findings';
import type { ProviderUnavailable } from '../provider/provider-answers';

const OPEN: SettlementStatus[] = ['pending', 'processing'];
/** Outcomes after which a reference can no longer pay: the provider said so itself (a lookup, or a documented "not created" refusal). */
const OVER: AttemptOutcome[] = ['failed', 'refunded'];
/** Outcomes of a reference whose fate the provider has not told yet: it may exist and may pay. */
const UNDECIDED: AttemptOutcome[] = ['submitting', 'ambiguous'];

export class SettlementNotFoundError extends Error {
  constructor(settlementId: string) {
    super(`settlement ${settlementId} does not exist`);
    this.name = 'SettlementNotFoundError';
  }
}

/** A request the settlement rules refuse whatever the provider says (a workflow asking for something it may not do). */
export class SettlementRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettlementRuleError';
  }
}

/** The provider reports a payout of another amount than the settlement's: a human must reconcile it. */
export class ProviderAmountMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderAmountMismatchError';
  }
}

function unavailable(error: ProviderUnavailableError | ProviderRejectedError, what: string): ProviderUnavailable {
  const retryAfterMs = error instanceof ProviderUnavailableError ? error.retryAfterMs : null;
  return { kind: 'unavailable', reason: `${what}: ${error.message}`, ...(retryAfterMs === null ? {} : { retryAfterMs }) };
}

/** A 4xx that answers the name lookup itself; 401/403 are about our credentials, not about the destination. */
function answersTheRequest(error: ProviderRejectedError): boolean {
  return error.httpStatus >= 400 && error.httpStatus < 500 && error.httpStatus !== 401 && error.httpStatus !== 403;
}

/**
 * The settlement rules the workflow's activities apply. Nothing here trusts the caller: every decision
 * that moves money or gives up a reference is taken from the database and the provider's own lookup,
 * under the settlement's row lock, so a retried, racing or forged activity changes nothing it should not.
 */
export function createSettlementExecutionService(deps: {
  db: Db;
  provider: PaymentProvider;
  postingEngine: EventedLedger;
  logger: Logger;
  config: Pick<Config, 'SETTLEMENT_MAX_ATTEMPTS' | 'SETTLEMENT_NOT_FOUND_GRACE'>;
  raiseFinding: RaiseSettlementFinding;
}) {
  const { db, provider, postingEngine, logger, config, raiseFinding } = deps;
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

  async function reverseDebit(
    trx: Trx,
    settlement: SettlementRecord,
    status: 'failed' | 'refunded',
    reason: string,
  ): Promise<SettlementStatus> {
    // The ledger's events layer tells the settlement's end (settlement.failed or settlement.refunded) from the reversal.
    const reversal = await postingEngine.reverseSettlementDebit(trx, settlement.debitEntryId, {
      settlement: status,
      reason,
      narration: `${status === 'failed' ? 'settlement failed' : 'settlement refunded'}: ${reason}`,
    });
    // The provider returns a refunded payout whole, its fee with it.
    if (reversal && settlement.status === 'success' && settlement.providerFee) {
      await postingEngine.payoutFeeReturned(trx, settlement.tenantId, settlement.merchantTxRef, settlement.providerFee);
    }
    await createSettlementsRepo(trx).update(settlement.id, {
      status,
      failureReason: reason,
      ...(reversal ? { reversalEntryId: reversal.reversal.id } : {}),
    });
    logger.info({ settlementId: settlement.id, merchantTxRef: settlement.merchantTxRef, status, reason }, 'settlement debit reversed');
    return status;
  }

  /** Ends an attempt that can no longer pay; false when it is not in one of `from` (decided otherwise meanwhile). */
  async function endAttempt(
    settlementId: string,
    attempt: SettlementAttempt,
    outcome: 'failed' | 'refunded',
    reason: string,
    from: AttemptOutcome[],
  ): Promise<boolean> {
    return db.transaction(async (trx) => {
      const repo = createSettlementsRepo(trx);
      await repo.lockById(settlementId);
      const current = await repo.findAttempt(settlementId, attempt.attemptNo);
      if (!current || !from.includes(current.outcome)) return false;
      await repo.upsertAttempt(settlementId, attempt.attemptNo, attempt.providerRef, outcome, { text: reason });
      logger.info({ settlementId, providerRef: attempt.providerRef, outcome, reason }, 'settlement attempt over');
      return true;
    });
  }

  /**
   * Which attempt may be submitted now: attempt n only when every earlier one is over (failed or
   * refunded, as the provider itself said: a lookup, or a documented "not created" refusal), n itself is
   * not over, no later one exists and none has succeeded. This is the one gate before a new reference.
   */
  function refuseSubmission(attempts: SettlementAttempt[], attemptNo: number): string | null {
    if (!Number.isInteger(attemptNo) || attemptNo < 1 || attemptNo > config.SETTLEMENT_MAX_ATTEMPTS)
      return `attempt ${attemptNo} is outside 1..${config.SETTLEMENT_MAX_ATTEMPTS}`;
    for (let earlier = 1; earlier < attemptNo; earlier += 1) {
      const found = attempts.find((attempt) => attempt.attemptNo === earlier);
      if (!found || !OVER.includes(found.outcome))
        return `attempt ${earlier} is ${found?.outcome ?? 'missing'}, not failed by the provider`;
    }
    const self = attempts.find((attempt) => attempt.attemptNo === attemptNo);
    if (self && (OVER.includes(self.outcome) || self.outcome === 'success')) return `attempt ${attemptNo} is already ${self.outcome}`;
    if (attempts.some((attempt) => attempt.attemptNo > attemptNo)) return `a later attempt than ${attemptNo} exists`;
    return null;
  }

  /**
   * Where a run picks up on a settlement that already has attempts (its previous run was terminated or
   * failed): the latest attempt, resubmitted under its own reference when its submission never got an
   * answer, else followed by lookups. An attempt that is over is followed too: its poll reports it
   * failed at once, and the workflow moves on to the next reference (or compensates) by the rules.
   */
  function resumePoint(attempts: SettlementAttempt[]): SettlementResumePoint | null {
    const latest = attempts.at(-1);
    if (!latest) return null;
    return { attempt: latest.attemptNo, stage: latest.outcome === 'submitting' ? 'submit' : 'follow' };
  }

  /**
   * SUCCESS with the settlement's amount, seen by our own lookup: the debit is confirmed and the payout booked, its fee a cost of the
   * tenant's.
   */
  async function complete(
    settlement: SettlementRecord,
    attempt: SettlementAttempt,
    feeKobo: string | null,
    paidAfterFailure = false,
  ): Promise<SettlementWorkflowStatus> {
    return transition(settlement.id, OPEN, async (trx) => {
      const repo = createSettlementsRepo(trx);
      const current = await repo.findAttempt(settlement.id, attempt.attemptNo);
      const expected: AttemptOutcome[] = paidAfterFailure ? ['failed'] : [...UNDECIDED, 'accepted'];
      if (!current || !expected.includes(current.outcome)) return (await repo.lockById(settlement.id))!.status;
      const providerFee = feeKobo === null ? null : BigInt(feeKobo);
      // The ledger's events layer tells settlement.succeeded from the payout it books.
      await postingEngine.settlementPaid(trx, settlement.debitEntryId, providerFee ?? 0n);
      await repo.update(settlement.id, { status: 'success', providerFee });
      const detail = paidAfterFailure
        ? { acknowledged: true, text: `the provider paid it after reporting it failed (${current.detail ?? 'failed'})` }
        : { acknowledged: true };
      await repo.upsertAttempt(settlement.id, attempt.attemptNo, attempt.providerRef, 'success', detail);
      return 'success';
    });
  }

  function paidAmountOf(settlement: SettlementRecord, attempt: SettlementAttempt, grossAmountKobo: string): void {
    if (BigInt(grossAmountKobo) === settlement.amount) return;
    const message = `provider reports ${attempt.providerRef} paid ${grossAmountKobo} kobo; the settlement is ${settlement.amount} kobo`;
    logger.error({ settlementId: settlement.id, providerRef: attempt.providerRef }, message);
    throw new ProviderAmountMismatchError(message);
  }

  /**
   * Before a new reference is minted, the one it replaces is asked once more: a provider can still turn a
   * transfer it reported failed into a paid one (a failure reversed on the rail) during the pause between
   * attempts. Paid now, it is the settlement's payout (adopted: the debit is confirmed, nothing new is
   * sent); PROCESSING again, or no answer, holds the new reference back for now. Null: it is still failed
   * (or unknown to the provider), and the new one may go. Older references were asked the same before
   * the one after them went; a payout of one later still is the reference watch's to report.
   */
  async function recheckReplaced(settlement: SettlementRecord, replaced: SettlementAttempt | undefined): Promise<SubmissionResult | null> {
    if (!replaced) return null;
    const lookup = await lookupProviderTransaction(provider, logger, replaced.providerRef);
    if (lookup.kind === 'unavailable')
      return { ...lookup, reason: `re-checking ${replaced.providerRef} before a new reference: ${lookup.reason}` };
    if (lookup.kind === 'not_found' || (lookup.merchantTxRef != null && lookup.merchantTxRef !== replaced.providerRef)) return null;
    if (lookup.status === 'PROCESSING')
      return {
        kind: 'unavailable',
        reason: `${replaced.providerRef}, reported failed, shows PROCESSING again: no new reference while it might pay`,
      };
    if (lookup.status !== 'SUCCESS') return null;
    if (replaced.outcome !== 'failed')
      return {
        kind: 'unavailable',
        reason: `${replaced.providerRef}, reported ${replaced.outcome}, shows SUCCESS: no new reference; an operator decides`,
      };
    paidAmountOf(settlement, replaced, lookup.grossAmountKobo);
    logger.warn(
      { settlementId: settlement.id, providerRef: replaced.providerRef },
      'the reference reported failed has been paid: adopted as the payout, no new reference',
    );
    return { kind: 'settlement_closed', status: await complete(settlement, replaced, lookup.feeKobo, true) };
  }

  /**
   * REFUND on a reference no lookup of ours has seen end: it may have been paid and reversed (a SUCCESS
   * answer lost to a timeout) as well as a failed debit returned, and the lookup cannot tell which. A new
   * reference would pay a second time in the first case, so the settlement ends as refunded: the
   * attempt refunded, the debit reversed, nothing new sent (the merchant can settle again).
   */
  async function refundedUnseen(settlement: SettlementRecord, attempt: SettlementAttempt): Promise<SettlementWorkflowStatus> {
    return transition(settlement.id, OPEN, async (trx, current) => {
      const repo = createSettlementsRepo(trx);
      const latest = await repo.findAttempt(settlement.id, attempt.attemptNo);
      if (!latest || ![...UNDECIDED, 'accepted'].includes(latest.outcome)) return current.status;
      const reason = `provider reports ${attempt.providerRef} REFUND before any lookup showed it end: it may have been paid`;
      await repo.upsertAttempt(settlement.id, attempt.attemptNo, attempt.providerRef, 'refunded', { text: reason });
      return reverseDebit(trx, current, 'refunded', 'provider refunded the transfer');
    });
  }

  /** Where an overdue settlement stands, from the database: null when it was decided meanwhile. */
  async function undecidedAttempt(
    settlement: SettlementRecord,
    attemptNo: number,
  ): Promise<{ subject: string; attempt: SettlementAttempt | null } | null> {
    if (!OPEN.includes(settlement.status)) return null;
    if (attemptNo === 0) return { subject: settlement.merchantTxRef, attempt: null };
    const attempt = await settlements.findAttempt(settlement.id, attemptNo);
    if (!attempt) return { subject: attemptReference(settlement.merchantTxRef, attemptNo), attempt: null };
    if (OVER.includes(attempt.outcome) || attempt.outcome === 'success') return null;
    return { subject: attempt.providerRef, attempt };
  }

  return {
    /**
     * The run's overdue clock ran out on attempt `attemptNo` (0: the destination check before the
     * first): one alert finding naming the settlement, its reference and the provider's last answer,
     * unless the database shows it decided meanwhile. Nothing is moved; the run goes on following the
     * same reference, and an operator can see why it waits.
     */
    async reportOverdue(settlementId: string, attemptNo: number, report: OverdueReport): Promise<OverdueOutcome> {
      const settlement = await load(settlementId);
      const undecided = await undecidedAttempt(settlement, attemptNo);
      if (!undecided) return 'decided';
      const raised = await raiseFinding({
        id: uuidv7(),
        tenantId: settlement.tenantId,
        kind: 'settlement_overdue',
        subject: undecided.subject,
        accountId: settlement.accountId,
        settlementId: settlement.id,
        details: {
          merchantTxRef: settlement.merchantTxRef,
          amount: formatKobo(settlement.amount),
          attempt: attemptNo,
          stage: report.stage,
          undecidedForSeconds: Math.round(report.undecidedForMs / 1000),
          lastProviderStatus: report.lastProviderStatus,
          ...(undecided.attempt
            ? {
                attemptOutcome: undecided.attempt.outcome,
                seenByLookup: undecided.attempt.acknowledgedAt !== null,
                attemptDetail: undecided.attempt.detail,
              }
            : {}),
        },
      });
      if (raised)
        logger.error(
          { settlementId, merchantTxRef: settlement.merchantTxRef, attempt: attemptNo, ...report },
          'settlement undecided past its overdue clock: alert raised',
        );
      return raised ? 'raised' : 'already_raised';
    },

    /**
     * Confirms the destination's name once (a payout to a wrong account cannot be taken back). Only the
     * provider saying the account does not exist (or refusing the request itself) makes it invalid; an
     * outage or an unknown answer is retried.
     */
    async checkDestination(settlementId: string): Promise<DestinationCheck> {
      const settlement = await load(settlementId);
      if (!OPEN.includes(settlement.status)) return { kind: 'closed', status: settlement.status };
      const resume = resumePoint(await settlements.listAttempts(settlementId));
      if (resume) return { kind: 'ok', resume };
      if (settlement.accountName) return { kind: 'ok' };
      try {
        const found = await provider.lookupAccount({ accountNumber: settlement.accountNumber, bankCode: settlement.bankCode });
        if (!found) return { kind: 'invalid', reason: 'destination account not found' };
        await settlements.update(settlementId, { accountName: found.accountName });
        return { kind: 'ok' };
      } catch (error) {
        if (error instanceof ProviderRejectedError && answersTheRequest(error))
          return { kind: 'invalid', reason: `destination rejected by the provider: ${error.description}` };
        if (error instanceof ProviderUnavailableError || error instanceof ProviderRejectedError)
          return unavailable(error, 'destination name lookup');
        throw error;
      }
    },

    /**
     * One submission under the attempt's own reference; a repeat of the same attempt reuses it (the
     * provider treats the reference as an idempotency key), which is also how a reference "not found"
     * for the grace is probed. The answer decides only this reference, and only while the attempt is
     * still `submitting` (a lookup that decided it meanwhile wins): accepted and duplicate say it may
     * exist, as a lookup will tell; a documented "not created" refusal fails it, but only on its first
     * submission (after an earlier answer the reference may exist, and a refusal of the repeat says
     * nothing about the original); every other answer is ambiguous. No answer to a submission counts as
     * the provider knowing the reference: only its lookup does.
     */
    async submitAttempt(settlementId: string, attemptNo: number): Promise<SubmissionResult> {
      const before = await load(settlementId);
      const attemptsBefore = await settlements.listAttempts(settlementId);
      if (OPEN.includes(before.status) && !attemptsBefore.some((attempt) => attempt.attemptNo >= attemptNo)) {
        const held = await recheckReplaced(
          before,
          attemptsBefore.find((attempt) => attempt.attemptNo === attemptNo - 1),
        );
        if (held) return held;
      }
      const gate = await db.transaction(async (trx) => {
        const repo = createSettlementsRepo(trx);
        const settlement = await repo.lockById(settlementId);
        if (!settlement) throw new SettlementNotFoundError(settlementId);
        if (!OPEN.includes(settlement.status)) return { kind: 'closed' as const, status: settlement.status };
        const attempts = await repo.listAttempts(settlementId);
        const refusal = refuseSubmission(attempts, attemptNo);
        if (refusal) throw new SettlementRuleError(`settlement ${settlement.merchantTxRef}: ${refusal}`);
        const existing = attempts.find((attempt) => attempt.attemptNo === attemptNo);
        const providerRef = attemptReference(settlement.merchantTxRef, attemptNo);
        await repo.update(settlementId, { status: 'processing', attemptCount: Math.max(settlement.attemptCount, attemptNo) });
        await repo.upsertAttempt(settlementId, attemptNo, providerRef, existing?.acknowledgedAt ? existing.outcome : 'submitting', {
          submitted: true,
        });
        return { kind: 'open' as const, providerRef, resubmission: existing !== undefined };
      });
      if (gate.kind === 'closed') return { kind: 'settlement_closed', status: gate.status };
      const { providerRef, resubmission } = gate;
      const record = (outcome: AttemptOutcome, detail: { text?: string; providerTransferId?: string }) =>
        settlements.recordSubmissionAnswer(settlementId, attemptNo, outcome, detail);

      const settlement = await load(settlementId);
      const account = await findAccountById(db, settlement.accountId);
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
        await record('accepted', { providerTransferId: transfer.id });
        await settlements.update(settlementId, { providerTransferId: transfer.id });
        return { kind: 'accepted', providerTransferId: transfer.id };
      } catch (error) {
        if (error instanceof ProviderUnavailableError) {
          await record('ambiguous', { text: error.message });
          return unavailable(error, 'transfer submission');
        }
        if (error instanceof ProviderRejectedError) {
          if (isDuplicateReference(error)) {
            // The provider says it has the reference, but only its lookup is believed: one that keeps
            // saying "not found" gets the grace and a probe like any reference no lookup has shown.
            await record('accepted', { text: `duplicate reference: ${error.description}` });
            return { kind: 'duplicate', reason: error.description };
          }
          if (isNotCreatedRefusal(error) && !resubmission) {
            const reason = `refused at submit, not created: ${error.message}`;
            await record('failed', { text: reason });
            logger.info({ settlementId, providerRef, reason }, 'settlement attempt over');
            return { kind: 'rejected', reason };
          }
          await record('ambiguous', { text: error.message });
          return { kind: 'ambiguous', reason: error.message };
        }
        throw error;
      }
    },

    /**
     * Looks the attempt up and acts on the answer itself: the debit is confirmed only on SUCCESS of the
     * settlement's amount; the attempt is failed only on PAYMENT_FAILED or REFUND. "Not found" never
     * fails it, however long it lasts: once a reference no lookup has shown yet has been "not found" for
     * SETTLEMENT_NOT_FOUND_GRACE since its first such answer after its last submission, the workflow is
     * told to probe it (submit the same reference again), whatever its submission was answered.
     */
    async pollAttempt(settlementId: string, attemptNo: number): Promise<AttemptProgress> {
      const settlement = await load(settlementId);
      if (!OPEN.includes(settlement.status)) return { kind: 'settlement_closed', status: settlement.status };
      const attempt = await settlements.findAttempt(settlementId, attemptNo);
      if (!attempt) throw new SettlementRuleError(`settlement ${settlement.merchantTxRef}: attempt ${attemptNo} was never submitted`);
      if (OVER.includes(attempt.outcome)) return { kind: 'failed', reason: attempt.detail ?? `attempt ${attemptNo} is ${attempt.outcome}` };

      const lookup = await lookupProviderTransaction(provider, logger, attempt.providerRef);
      if (lookup.kind === 'unavailable') return lookup;
      if (lookup.kind === 'not_found') {
        if (attempt.acknowledgedAt) return { kind: 'pending', providerStatus: 'NOT_FOUND', acknowledged: true };
        if (await settlements.noteNotFound(settlementId, attemptNo, config.SETTLEMENT_NOT_FOUND_GRACE)) {
          const reason = `not found by the provider for ${Math.round(config.SETTLEMENT_NOT_FOUND_GRACE / 1000)} s after its last submission: submitting the same reference again`;
          logger.info({ settlementId, providerRef: attempt.providerRef, reason }, 'settlement attempt probed');
          return { kind: 'probe', reason };
        }
        return { kind: 'pending', providerStatus: 'NOT_FOUND', acknowledged: false };
      }

      if (lookup.merchantTxRef != null && lookup.merchantTxRef !== attempt.providerRef) {
        // An answer about another provider transfer says nothing about this reference: neither paid nor failed.
        const reason = `the provider's lookup of ${attempt.providerRef} answered about ${lookup.merchantTxRef}`;
        logger.error({ settlementId, providerRef: attempt.providerRef, answeredRef: lookup.merchantTxRef }, reason);
        return { kind: 'unavailable', reason };
      }
      if (UNDECIDED.includes(attempt.outcome) || !attempt.acknowledgedAt)
        await settlements.acknowledgeAttempt(settlementId, attemptNo, lookup.transactionId);
      switch (lookup.status) {
        case 'PROCESSING':
          return { kind: 'pending', providerStatus: 'PROCESSING', acknowledged: true };
        case 'SUCCESS': {
          paidAmountOf(settlement, attempt, lookup.grossAmountKobo);
          const status = await complete(settlement, attempt, lookup.feeKobo);
          // An earlier run of this poll (timed out, still running) may have ended the attempt failed meanwhile:
          // paid after all, the reference is adopted, as before a new one. An open status would end the run.
          if (!OPEN.includes(status)) return { kind: 'succeeded', status };
          return { kind: 'succeeded', status: await complete(settlement, attempt, lookup.feeKobo, true) };
        }
        case 'PAYMENT_FAILED': {
          const reason = 'provider reports PAYMENT_FAILED';
          await endAttempt(settlementId, attempt, 'failed', reason, [...UNDECIDED, 'accepted']);
          return { kind: 'failed', reason };
        }
        case 'REFUND': {
          const status = await refundedUnseen(settlement, attempt);
          if (!OPEN.includes(status)) return { kind: 'settlement_closed', status };
          // Seen ending failed meanwhile (an earlier run of this poll): a failed debit returned, the failure decides.
          return { kind: 'failed', reason: `provider reports REFUND on ${attempt.providerRef}, reported failed` };
        }
        default:
          throw new Error(`unexpected provider status ${String(lookup.status satisfies never)}`);
      }
    },

    /** Compensation after the last failed attempt (or an invalid destination): only when no attempt can still pay. */
    fail(settlementId: string, reason: string): Promise<SettlementWorkflowStatus> {
      return transition(settlementId, OPEN, async (trx, settlement) => {
        const open = (await createSettlementsRepo(trx).listAttempts(settlementId)).filter((attempt) => !OVER.includes(attempt.outcome));
        if (open.length > 0) {
          throw new SettlementRuleError(
            `settlement ${settlement.merchantTxRef} cannot fail: attempt ${open.map((attempt) => `${attempt.attemptNo} is ${attempt.outcome}`).join(', ')}`,
          );
        }
        return reverseDebit(trx, settlement, 'failed', reason);
      });
    },

    /**
     * A refund the provider reports for `providerRef`, checked with the provider itself: the debit is
     * reversed only when that reference is the settlement's successful attempt and its lookup says
     * REFUND; the refund of a failed attempt is recorded on that attempt alone.
     */
    async refund(settlementId: string, providerRef: string): Promise<RefundCheck> {
      const settlement = await load(settlementId);
      const attempt = (await settlements.listAttempts(settlementId)).find((candidate) => candidate.providerRef === providerRef);
      if (!attempt)
        return {
          kind: 'not_applicable',
          status: settlement.status,
          reason: `${providerRef} is no attempt of settlement ${settlement.merchantTxRef}`,
        };
      if (attempt.outcome === 'refunded')
        return { kind: settlement.status === 'refunded' ? 'refunded' : 'attempt_refunded', status: settlement.status };
      if (attempt.outcome !== 'success' && attempt.outcome !== 'failed') {
        return {
          kind: 'not_refunded',
          status: settlement.status,
          reason: `attempt ${attempt.attemptNo} is still ${attempt.outcome}: its own lookups decide`,
        };
      }

      const lookup = await lookupProviderTransaction(provider, logger, providerRef);
      if (lookup.kind === 'unavailable') return lookup;
      if (lookup.kind !== 'found' || lookup.status !== 'REFUND' || (lookup.merchantTxRef != null && lookup.merchantTxRef !== providerRef)) {
        return {
          kind: 'not_refunded',
          status: settlement.status,
          reason: `provider reports ${lookup.kind === 'found' ? lookup.status : 'not found'}`,
        };
      }
      if (attempt.outcome === 'failed') {
        await endAttempt(settlementId, attempt, 'refunded', 'provider returned the failed debit (REFUND)', ['failed']);
        return { kind: 'attempt_refunded', status: settlement.status };
      }
      const status = await transition(settlementId, ['success'], async (trx, current) => {
        await createSettlementsRepo(trx).upsertAttempt(settlementId, attempt.attemptNo, providerRef, 'refunded', {
          text: 'provider refunded the transfer after success',
        });
        return reverseDebit(trx, current, 'refunded', 'provider refunded the transfer');
      });
      return status === 'refunded' ? { kind: 'refunded', status } : { kind: 'not_refunded', status, reason: `settlement is ${status}` };
    },
  };
}

export type SettlementExecutionService = ReturnType<typeof createSettlementExecutionService>;
