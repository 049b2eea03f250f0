import type { ConfirmationProgress } from './payment-confirmation.contract';
import type { ProviderTxnLookup } from '../provider/provider-answers';
/**
 * The rules that confirm or reverse one provisional payment credit, as pure functions of the
 * provider's answers and the clock. The batch confirmation workflow times its lookups by them; the
 * batch activity decides by them (`decidePayment`) from the database's record and its own lookup before
 * it moves money. Workflow code imports this module: it must stay free of side effects and of imports
 * other than types.
 */

/** Lookups back off to this interval at most. */
export const MAX_LOOKUP_INTERVAL_MS = 5 * 60_000;

/** However short the configured interval, a confirmation never asks the provider in a tight loop. */
const MIN_LOOKUP_INTERVAL_MS = 100;

/**
 * How "not found" answers about a transaction never seen reverse its credit: only once
 * `answersToReverse` of them have counted, the last of them after the window closed. An answer counts
 * only `spacingMs` or more after the previous counted one (the first counts whenever it comes), so the
 * counted answers are spread out in real time while we were looking, not just the clock running: answers
 * bunched together (a starved or restarted worker catching up after the window closed) count once, and
 * the clock running out while nobody asked never reverses money.
 */
export interface NotFoundRule {
  answersToReverse: number;
  spacingMs: number;
}

/**
 * The rule of confirmations started before the minimum was configurable (no `minNotFoundLookups` in
 * their input): two answers, however close together. Their histories must replay to the same commands,
 * so they keep it; every confirmation started since carries its minimum.
 */
const RULE_OF_RUNS_WITHOUT_MINIMUM: NotFoundRule = { answersToReverse: 2, spacingMs: 0 };

/**
 * The rule for a window and a minimum of counted "not found" answers (CONFIRMATION_MIN_NOT_FOUND_LOOKUPS):
 * spaced `windowMs / minimum` apart (rounded up, never a moment less). A confirmation that looked all
 * along has its answers counted across the window and reverses about a spacing after it at most; one
 * that first asks after the window (a late start, a stalled worker) still looks for (minimum - 1)
 * spacings of real time, 20 minutes of a 30-minute window with the default 3, before it decides.
 */
export function notFoundRule(windowMs: number, minNotFoundLookups: number | undefined): NotFoundRule {
  if (minNotFoundLookups === undefined) return RULE_OF_RUNS_WITHOUT_MINIMUM;
  const answersToReverse = Math.max(1, Math.floor(minNotFoundLookups));
  return { answersToReverse, spacingMs: Math.ceil(windowMs / answersToReverse) };
}

/** "Not found" answers that count towards a reversal, and when the last of them came (null: none yet). */
interface NotFoundTally {
  answers: number;
  lastAtMs: number | null;
}

/** The tally after one more "not found" at `atMs` about a transaction never seen: it counts only spaced from the last counted one. */
function countNotFound(tally: NotFoundTally, atMs: number, rule: NotFoundRule): NotFoundTally {
  if (tally.lastAtMs !== null && atMs - tally.lastAtMs < rule.spacingMs) return tally;
  return { answers: tally.answers + 1, lastAtMs: atMs };
}

type NotFoundVerdict = { kind: 'reverse' } | { kind: 'within_window' } | { kind: 'wait'; untilMs: number; why: string };

/**
 * What a "not found" about a transaction never seen decides (this answer already counted or not):
 * nothing within the window; after it, a reversal once enough spaced answers counted, the last after
 * the window closed; otherwise a wait until the next answer can count (`untilMs`).
 */
function notFoundVerdict(tally: NotFoundTally, clock: { nowMs: number; windowEndsAtMs: number }, rule: NotFoundRule): NotFoundVerdict {
  if (clock.nowMs < clock.windowEndsAtMs) return { kind: 'within_window' };
  const lastAfterWindow = tally.lastAtMs !== null && tally.lastAtMs >= clock.windowEndsAtMs;
  if (tally.answers >= rule.answersToReverse && lastAfterWindow) return { kind: 'reverse' };
  const untilMs = tally.lastAtMs === null ? clock.nowMs : tally.lastAtMs + rule.spacingMs;
  return {
    kind: 'wait',
    untilMs,
    why: `window over; ${Math.min(tally.answers, rule.answersToReverse)} of ${rule.answersToReverse} counted "not found" answers (spaced, the last after the window)`,
  };
}

/** Why a credit the provider never showed is reversed; reconciliation restores such a reversal once the provider shows it. */
export const NOT_KNOWN_IN_WINDOW = 'not known to the provider within the confirmation window';

/** Provider transaction types that move money out of the wallet: never a payment into an account. */
const OUTGOING_TYPES = new Set(['transfer']);

type ConfirmationStep = { kind: 'confirm' } | { kind: 'reverse'; reason: string } | { kind: 'wait'; ms: number; why: string };

export function initialProgress(pollIntervalMs: number): ConfirmationProgress {
  return {
    lookups: 0,
    firstSeenAtMs: null,
    notFoundAnswers: 0,
    lastNotFoundCountedAtMs: null,
    delayMs: Math.max(pollIntervalMs, MIN_LOOKUP_INTERVAL_MS),
    runs: 1,
  };
}

const tallyOf = (progress: ConfirmationProgress): NotFoundTally => ({
  answers: progress.notFoundAnswers,
  lastAtMs: progress.lastNotFoundCountedAtMs ?? null,
});

/** Counts an answer: a transaction the provider has shown once stays "seen" for good; a "not found" counts by the rule. */
export function recordLookup(
  progress: ConfirmationProgress,
  lookup: ProviderTxnLookup,
  nowMs: number,
  rule: NotFoundRule,
): ConfirmationProgress {
  const firstSeenAtMs = progress.firstSeenAtMs ?? (lookup.kind === 'found' ? nowMs : null);
  const tally = lookup.kind === 'not_found' && firstSeenAtMs === null ? countNotFound(tallyOf(progress), nowMs, rule) : tallyOf(progress);
  return {
    ...progress,
    lookups: progress.lookups + 1,
    firstSeenAtMs,
    notFoundAnswers: tally.answers,
    lastNotFoundCountedAtMs: tally.lastAtMs,
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
 * - not found, never seen: reverse only when the window (from posting time) is over and the rule's
 *   spaced answers have counted, the last after the window; otherwise wait, after the window until the
 *   next answer can count. A transaction once seen is never reversed by a later "not found";
 * - unreachable: wait; a payment is never reversed for lack of an answer.
 */
export function nextStep(
  progress: ConfirmationProgress,
  lookup: ProviderTxnLookup,
  clock: { nowMs: number; deadlineMs: number; pollIntervalMs: number },
  rule: NotFoundRule,
): ConfirmationStep {
  if (lookup.kind === 'found') {
    if (lookup.status === 'SUCCESS') return { kind: 'confirm' };
    if (lookup.status === 'PAYMENT_FAILED' || lookup.status === 'REFUND')
      return { kind: 'reverse', reason: `provider reports ${lookup.status}` };
    return { kind: 'wait', ms: progress.delayMs, why: 'provider shows it PROCESSING' };
  }
  if (progress.firstSeenAtMs !== null) {
    return {
      kind: 'wait',
      ms: progress.delayMs,
      why: lookup.kind === 'not_found' ? 'seen before; "not found" is lookup lag' : 'provider unreachable',
    };
  }
  const remainingMs = clock.deadlineMs - clock.nowMs;
  if (lookup.kind === 'unavailable')
    return { kind: 'wait', ms: remainingMs > 0 ? Math.min(progress.delayMs, remainingMs) : progress.delayMs, why: 'provider unreachable' };
  const verdict = notFoundVerdict(tallyOf(progress), { nowMs: clock.nowMs, windowEndsAtMs: clock.deadlineMs }, rule);
  if (verdict.kind === 'within_window')
    return { kind: 'wait', ms: Math.min(progress.delayMs, remainingMs), why: 'not found yet, within the window' };
  if (verdict.kind === 'reverse') return { kind: 'reverse', reason: NOT_KNOWN_IN_WINDOW };
  // The next lookup comes when an answer can count again: after a stall the confirmation keeps looking
  // for real time instead of asking a few times in a row. It comes a poll interval past that moment: a
  // batch's activity counts by the database's clock as its round runs, a little after the workflow time
  // its answer is noted at, and a lookup it would find a moment too early would not count.
  const soonestMs = Math.max(clock.pollIntervalMs, MIN_LOOKUP_INTERVAL_MS);
  const countsAgainInMs = verdict.untilMs - clock.nowMs;
  return { kind: 'wait', ms: countsAgainInMs > 0 ? countsAgainInMs + soonestMs : soonestMs, why: verdict.why };
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
  if (found.accountRef != null && found.accountRef !== credit.aliasAccountRef)
    return `provider credits account ${found.accountRef}, not ${credit.aliasAccountRef}`;
  if (found.merchantTxRef != null || (found.type != null && OUTGOING_TYPES.has(found.type)))
    return 'provider shows an outgoing transfer, not a payment received';
  // A missing currency means NGN, as when the webhook was ingested.
  const currency = found.currency ?? 'NGN';
  if (currency !== credit.currency) return `provider currency ${currency} differs from ${credit.currency}`;
  if (found.grossAmountKobo !== credit.grossAmountKobo)
    return `provider amount ${found.grossAmountKobo} kobo differs from ${credit.grossAmountKobo} kobo`;
  return null;
}

type CreditJudgement =
  { kind: 'matches' } | { kind: 'wrong'; reason: string } | { kind: 'undecided'; reason: string } | { kind: 'unknown' };

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
  if (lookup.status === 'PAYMENT_FAILED' || lookup.status === 'REFUND')
    return { kind: 'wrong', reason: `provider reports ${lookup.status}` };
  if (lookup.status === 'PROCESSING') return { kind: 'undecided', reason: 'provider shows it PROCESSING' };
  return { kind: 'matches' };
}

/** What the provider has taught us about one payment so far (kept with its claim in the database). */
export interface PaymentMemory {
  /** The provider has shown the transaction at least once (in any status). */
  seen: boolean;
  /** "Not found" answers that counted (by the rule) while it was never seen, this one included. */
  notFoundAnswers: number;
  /** When the last counted "not found" came (null: none yet). */
  lastNotFoundCountedAtMs: number | null;
}

/** The memory after one more answer at `nowMs`: a transaction once seen stays seen; a "not found" counts by the rule. */
export function rememberLookup(memory: PaymentMemory, lookup: ProviderTxnLookup, nowMs: number, rule: NotFoundRule): PaymentMemory {
  const seen = memory.seen || lookup.kind === 'found';
  const tally: NotFoundTally = { answers: memory.notFoundAnswers, lastAtMs: memory.lastNotFoundCountedAtMs };
  const counted = lookup.kind === 'not_found' && !seen ? countNotFound(tally, nowMs, rule) : tally;
  return { seen, notFoundAnswers: counted.answers, lastNotFoundCountedAtMs: counted.lastAtMs };
}

type PaymentDecision = { kind: 'confirm' } | { kind: 'reverse'; reason: string } | { kind: 'keep'; reason: string };

/**
 * The batch activity's decision for one credit, from the database's record of it, what the provider
 * said before (`memory`, this answer already remembered), the provider's answer now, and the clock
 * (the database's: its time now and when this payment's window, from its own posting, ends):
 * SUCCESS with every field matching confirms;
 * failed, refunded or not this credit reverses; PROCESSING and an unreachable provider keep it however
 * long; "not found" reverses only a transaction never seen, after the window, once the rule's spaced
 * answers have counted, the last after the window.
 */
export function decidePayment(
  credit: CreditFacts,
  memory: PaymentMemory,
  lookup: ProviderTxnLookup,
  clock: { nowMs: number; windowEndsAtMs: number },
  rule: NotFoundRule,
): PaymentDecision {
  const judgement = judgeCredit(credit, lookup);
  if (judgement.kind === 'matches') return { kind: 'confirm' };
  if (judgement.kind === 'wrong') return { kind: 'reverse', reason: judgement.reason };
  if (judgement.kind === 'undecided') return { kind: 'keep', reason: judgement.reason };
  if (memory.seen) return { kind: 'keep', reason: 'seen before; "not found" is lookup lag' };
  const verdict = notFoundVerdict({ answers: memory.notFoundAnswers, lastAtMs: memory.lastNotFoundCountedAtMs }, clock, rule);
  if (verdict.kind === 'within_window') return { kind: 'keep', reason: 'not found yet, within the window' };
  if (verdict.kind === 'reverse') return { kind: 'reverse', reason: NOT_KNOWN_IN_WINDOW };
  return { kind: 'keep', reason: verdict.why };
}

/**
 * How long a payment the batch activity kept waits before its next lookup, by `nextStep`
 * (back-off from the poll interval, never past the window's end while the provider does not know
 * it, after the window not before an answer can count again). Where the workflow's own rules would
 * already decide but the activity did not (its clock is the database's), it waits the current delay.
 */
export function keptDelayMs(
  progress: ConfirmationProgress,
  lookup: ProviderTxnLookup,
  clock: { nowMs: number; deadlineMs: number; pollIntervalMs: number },
  rule: NotFoundRule,
): number {
  const step = nextStep(progress, lookup, clock, rule);
  return step.kind === 'wait' ? step.ms : progress.delayMs;
}
