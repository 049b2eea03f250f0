/**
 * The rules that confirm or reverse one provisional payment credit, as pure functions of the
 * provider's answers and the clock. The confirmation workflow applies them to its lookups; the
 * confirm and reverse activities apply `judgeCredit` again to the database's record and their own
 * lookup before they move money. Workflow code imports this module: it must stay free of side effects
 * and of imports other than types.
 */
import type { ConfirmationProgress, ProviderTxnLookup } from '../temporal/payloads';

/** Lookups back off to this interval at most. */
export const MAX_LOOKUP_INTERVAL_MS = 5 * 60_000;

/** However short the configured interval, a confirmation never asks the provider in a tight loop. */
const MIN_LOOKUP_INTERVAL_MS = 100;

/**
 * "Not found" answers needed (with the window over and the transaction never seen) before a credit is
 * reversed: one answer alone, e.g. the first after an outage, never decides.
 */
export const NOT_FOUND_ANSWERS_TO_REVERSE = 2;

/** Why a credit the provider never showed is reversed; reconciliation restores such a reversal once the provider shows it. */
export const NOT_KNOWN_IN_WINDOW = 'not known to the provider within the confirmation window';

/** Provider transaction types that move money out of the wallet: never a payment into an account. */
const OUTGOING_TYPES = new Set(['transfer']);

export type ConfirmationStep = { kind: 'confirm' } | { kind: 'reverse'; reason: string } | { kind: 'wait'; ms: number; why: string };

export function initialProgress(pollIntervalMs: number): ConfirmationProgress {
  return { lookups: 0, firstSeenAtMs: null, notFoundAnswers: 0, delayMs: Math.max(pollIntervalMs, MIN_LOOKUP_INTERVAL_MS), runs: 1 };
}

/** Counts an answer: a transaction the provider has shown once stays "seen" for good. */
export function recordLookup(progress: ConfirmationProgress, lookup: ProviderTxnLookup, nowMs: number): ConfirmationProgress {
  return {
    ...progress,
    lookups: progress.lookups + 1,
    firstSeenAtMs: progress.firstSeenAtMs ?? (lookup.kind === 'found' ? nowMs : null),
    notFoundAnswers: progress.notFoundAnswers + (lookup.kind === 'not_found' && progress.firstSeenAtMs === null ? 1 : 0),
  };
}

/** After a wait, the next one is twice as long, up to the cap. */
export function backedOff(progress: ConfirmationProgress): ConfirmationProgress {
  return { ...progress, delayMs: Math.min(progress.delayMs * 2, MAX_LOOKUP_INTERVAL_MS) };
}

/**
 * What to do after a lookup (already counted by recordLookup):
 * - SUCCESS: confirm (the activity checks every field before it does);
 * - PAYMENT_FAILED or REFUND: reverse;
 * - PROCESSING: wait, however long it takes (never reversed for time);
 * - not found, never seen: reverse only when the window (from posting time) is over and the provider
 *   has said so at least twice; a transaction once seen is never reversed by a later "not found";
 * - unreachable: wait; a payment is never reversed for lack of an answer.
 */
export function nextStep(progress: ConfirmationProgress, lookup: ProviderTxnLookup, clock: { nowMs: number; deadlineMs: number; pollIntervalMs: number }): ConfirmationStep {
  if (lookup.kind === 'found') {
    if (lookup.status === 'SUCCESS') return { kind: 'confirm' };
    if (lookup.status === 'PAYMENT_FAILED' || lookup.status === 'REFUND') return { kind: 'reverse', reason: `provider reports ${lookup.status}` };
    return { kind: 'wait', ms: progress.delayMs, why: 'provider shows it PROCESSING' };
  }
  if (progress.firstSeenAtMs !== null) {
    return { kind: 'wait', ms: progress.delayMs, why: lookup.kind === 'not_found' ? 'seen before; "not found" is lookup lag' : 'provider unreachable' };
  }
  const remainingMs = clock.deadlineMs - clock.nowMs;
  if (lookup.kind === 'unavailable') return { kind: 'wait', ms: remainingMs > 0 ? Math.min(progress.delayMs, remainingMs) : progress.delayMs, why: 'provider unreachable' };
  if (remainingMs > 0) return { kind: 'wait', ms: Math.min(progress.delayMs, remainingMs), why: 'not found yet, within the window' };
  if (progress.notFoundAnswers >= NOT_FOUND_ANSWERS_TO_REVERSE) return { kind: 'reverse', reason: NOT_KNOWN_IN_WINDOW };
  // The window is over but this is the only "not found": ask once more, soon.
  return { kind: 'wait', ms: Math.max(clock.pollIntervalMs, MIN_LOOKUP_INTERVAL_MS), why: 'window over; asking once more' };
}

/** The provisional credit as the database records it, in the terms of the provider's lookup. */
export interface CreditFacts {
  providerTxnRef: string;
  /** The reference the payer paid into (for an operator-assigned misdirected payment, the one it arrived under). */
  aliasAccountRef: string;
  grossAmountKobo: string;
  currency: string;
}

/** Why the provider's transaction is not this credit, or null when every field it returned matches. */
export function mismatchOf(credit: CreditFacts, found: Extract<ProviderTxnLookup, { kind: 'found' }>): string | null {
  if (found.transactionId !== credit.providerTxnRef) return `provider transaction ${found.transactionId} is not ${credit.providerTxnRef}`;
  if (found.accountRef != null && found.accountRef !== credit.aliasAccountRef) return `provider credits account ${found.accountRef}, not ${credit.aliasAccountRef}`;
  if (found.merchantTxRef != null || (found.type != null && OUTGOING_TYPES.has(found.type))) return 'provider shows an outgoing transfer, not a payment received';
  // A missing currency means NGN, as when the webhook was ingested.
  const currency = found.currency ?? 'NGN';
  if (currency !== credit.currency) return `provider currency ${currency} differs from ${credit.currency}`;
  if (found.grossAmountKobo !== credit.grossAmountKobo) return `provider amount ${found.grossAmountKobo} kobo differs from ${credit.grossAmountKobo} kobo`;
  return null;
}

export type CreditJudgement =
  | { kind: 'matches' }
  | { kind: 'wrong'; reason: string }
  | { kind: 'undecided'; reason: string }
  | { kind: 'unknown' };

/**
 * The provider's answer about one credit: it matches (SUCCESS, every returned field equal), it is
 * wrong (failed, refunded, or not this credit), nothing is decided yet (PROCESSING, unreachable), or
 * the provider does not know it (whether that reverses depends on the window).
 */
export function judgeCredit(credit: CreditFacts, lookup: ProviderTxnLookup): CreditJudgement {
  if (lookup.kind === 'unavailable') return { kind: 'undecided', reason: `provider unreachable: ${lookup.reason}` };
  if (lookup.kind === 'not_found') return { kind: 'unknown' };
  const mismatch = mismatchOf(credit, lookup);
  if (mismatch) return { kind: 'wrong', reason: mismatch };
  if (lookup.status === 'PAYMENT_FAILED' || lookup.status === 'REFUND') return { kind: 'wrong', reason: `provider reports ${lookup.status}` };
  if (lookup.status === 'PROCESSING') return { kind: 'undecided', reason: 'provider shows it PROCESSING' };
  return { kind: 'matches' };
}

/** What the provider has taught us about one payment so far (kept with its claim in the database). */
export interface PaymentMemory {
  /** The provider has shown the transaction at least once (in any status). */
  seen: boolean;
  /** "Not found" answers while it was never seen, this one included. */
  notFoundAnswers: number;
}

/** The memory after one more answer: a transaction once seen stays seen. */
export function rememberLookup(memory: PaymentMemory, lookup: ProviderTxnLookup): PaymentMemory {
  const seen = memory.seen || lookup.kind === 'found';
  return { seen, notFoundAnswers: memory.notFoundAnswers + (lookup.kind === 'not_found' && !seen ? 1 : 0) };
}

export type PaymentDecision = { kind: 'confirm' } | { kind: 'reverse'; reason: string } | { kind: 'keep'; reason: string };

/**
 * The batch activity's decision for one credit, from the database's record of it, what the provider
 * said before (`memory`, this answer already remembered), the provider's answer now, and whether the
 * window (from this payment's own posting, by the database's clock) is over. The same rules as the
 * per-payment workflow and its activities: SUCCESS with every field matching confirms; failed,
 * refunded or not this credit reverses; PROCESSING and an unreachable provider keep it however long;
 * "not found" reverses only a transaction never seen, after the window, on the second such answer.
 */
export function decidePayment(credit: CreditFacts, memory: PaymentMemory, lookup: ProviderTxnLookup, windowOver: boolean): PaymentDecision {
  const judgement = judgeCredit(credit, lookup);
  if (judgement.kind === 'matches') return { kind: 'confirm' };
  if (judgement.kind === 'wrong') return { kind: 'reverse', reason: judgement.reason };
  if (judgement.kind === 'undecided') return { kind: 'keep', reason: judgement.reason };
  if (memory.seen) return { kind: 'keep', reason: 'seen before; "not found" is lookup lag' };
  if (!windowOver) return { kind: 'keep', reason: 'not found yet, within the window' };
  if (memory.notFoundAnswers >= NOT_FOUND_ANSWERS_TO_REVERSE) return { kind: 'reverse', reason: NOT_KNOWN_IN_WINDOW };
  return { kind: 'keep', reason: 'window over; asking once more' };
}

/**
 * How long a payment the batch activity kept waits before its next lookup: the per-payment workflow's
 * timing (back-off from the poll interval, never past the window's end while the provider does not know
 * it, soon once the window is over). Where the workflow's own rules would already decide but the
 * activity did not (its clock is the database's), it waits the current delay.
 */
export function keptDelayMs(progress: ConfirmationProgress, lookup: ProviderTxnLookup, clock: { nowMs: number; deadlineMs: number; pollIntervalMs: number }): number {
  const step = nextStep(progress, lookup, clock);
  return step.kind === 'wait' ? step.ms : progress.delayMs;
}
