import { condition, proxyActivities, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { SettlementActivities } from '../activities/settlements.activities';
import { continueAsNewWith, historyIsLong } from './continue-as-new';
import { MAX_PROVIDER_BACKOFF_MS, MAX_REFUND_WATCH_BACKOFF_MS, pace } from './pacing';
import { SETTLEMENT_STATUS } from '../src/contracts/search-attributes';
import {
  DEFAULT_OVERDUE_AFTER_MS,
  payoutSignal,
  type SettlementInput,
  type SettlementProgress,
  settlementStatusQuery,
  type SettlementWorkflowStatus,
} from '../src/contracts/settlement.contract';

// Each activity is one provider call (plus a token refresh at worst) around short transactions; its
// start-to-close comes with the input (from PROVIDER_TIMEOUT). Provider outages come back as results;
// this retry policy only covers the database and the worker.
const settlementActivities = (startToCloseMs: number | undefined) =>
  proxyActivities<SettlementActivities>({
    startToCloseTimeout: startToCloseMs ?? '45 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });

/**
 * Pays a settlement out: up to maxAttempts references `<ref>-<n>`, at most one of which can ever pay.
 * The activities decide from the provider's own answers, never from what the workflow tells them; the
 * workflow decides when to ask:
 * - an outage on submit repeats the same reference (the provider dedups it) with back-off, honouring
 *   Retry-After, and does not use up an attempt;
 * - a submitted reference is polled (back-off ×1.5 to 60 s, a payout webhook wakes it early) until the
 *   activity reports it succeeded or definitively failed; only then may reference n+1 be used;
 * - a reference the provider keeps calling "not found" is probed by submitting it again (the activity
 *   says when): the provider's answer to the repeat tells whether it exists, and an ambiguous answer is
 *   followed by lookups and, after the grace, another probe, for as long as it takes;
 * - success confirms the debit and watches for a refund for refundWatchMs; all attempts failing
 *   reverses it (failed); a refund of the paid attempt reverses it (refunded).
 * - every undecided stage (the destination check, a submission without an answer, a reference followed
 *   by lookups) runs against the overdue clock: past overdueAfterMs since the attempt began, one alert
 *   finding names the settlement and the provider's last answer, and the run goes on as before.
 * Long waits (a provider transfer PROCESSING for days, an outage) continue as new, carrying `progress`, and the
 * next run goes on at the stage it carries.
 * A run started on a settlement already under way (the convergence check restarts one whose run was terminated or
 * failed) picks up at the attempt the database holds: it follows that reference, never a new one.
 */
export async function settlementWorkflow(input: SettlementInput): Promise<SettlementWorkflowStatus> {
  const run = beginRun(input);
  const ended = (await checkDestination(run)) ?? (await payOut(run));
  return ended ?? watchForRefund(run);
}

/** One run of a settlement: what every stage reads and moves on. */
interface SettlementRun {
  input: SettlementInput;
  activities: ReturnType<typeof settlementActivities>;
  /** Where the settlement stands; the next run carries it when this one continues as new. */
  progress: SettlementProgress;
  /** References the provider has sent news about (payout webhooks) since the workflow last waited for them. */
  news: Set<string>;
}

/** Picks up the progress carried from the previous run (or starts at the destination check) and answers the query and the payout signal. */
function beginRun(input: SettlementInput): SettlementRun {
  const progress: SettlementProgress = input.progress ?? {
    stage: 'destination',
    status: 'pending',
    attempt: 0,
    delayMs: input.pollIntervalMs,
    untilMs: null,
    lastProviderStatus: null,
  };
  progress.undecidedSinceMs ??= Date.now();
  const run: SettlementRun = { input, activities: settlementActivities(input.activityTimeoutMs), progress, news: new Set() };
  setHandler(settlementStatusQuery, () => ({
    status: progress.status,
    stage: progress.stage,
    attempt: progress.attempt,
    providerRef: providerRef(run),
    lastProviderStatus: progress.lastProviderStatus,
  }));
  setHandler(payoutSignal, (signal) => {
    run.news.add(signal.providerRef);
  });
  return run;
}

/**
 * The provider's name lookup of the destination, retried through outages. A settlement already under
 * way resumes at the attempt the database holds; a destination the provider does not find fails it
 * before anything is sent.
 */
async function checkDestination(run: SettlementRun): Promise<SettlementWorkflowStatus | undefined> {
  const { input, activities, progress } = run;
  while (progress.stage === 'destination') {
    await beforeEachStep(run);
    const check = await activities.checkSettlementDestination(input.settlementId);
    if (check.kind === 'closed') return setStatus(run, check.status);
    if (check.kind === 'invalid') return setStatus(run, await activities.failSettlement(input.settlementId, check.reason));
    if (check.kind === 'ok' && check.resume) {
      startAttempt(run, check.resume.attempt);
      progress.stage = check.resume.stage;
      setStatus(run, 'processing');
    } else if (check.kind === 'ok') startAttempt(run, 1);
    else await backOff(run, MAX_PROVIDER_BACKOFF_MS, check.retryAfterMs);
  }
  return undefined;
}

/**
 * The references one after another: each submitted and followed until the provider decides it, the
 * next one only after a failed one's pause. Ends when one pays (the refund watch follows) or with the
 * settlement's status when it closes.
 */
async function payOut(run: SettlementRun): Promise<SettlementWorkflowStatus | undefined> {
  const { stage } = run.progress;
  if (stage !== 'submit' && stage !== 'follow' && stage !== 'pause') return undefined;
  while (run.progress.stage !== 'watch') {
    const ended = (await submitAttempt(run)) ?? (await followReference(run));
    if (ended) return ended;
    await pauseBeforeNextAttempt(run);
  }
  return undefined;
}

/** Submits the current reference, again under the same reference through outages (the provider dedups it). */
async function submitAttempt(run: SettlementRun): Promise<SettlementWorkflowStatus | undefined> {
  const { input, activities, progress } = run;
  while (progress.stage === 'submit') {
    await beforeEachStep(run);
    // A probe (the same reference again after "not found" for the grace) keeps the lookups' back-off:
    // a reference probed again and again must not restart a burst of fast lookups each time.
    const probing = progress.lastProviderStatus === 'NOT_FOUND';
    const submission = await activities.submitSettlementAttempt(input.settlementId, progress.attempt);
    if (submission.kind === 'settlement_closed') return setStatus(run, submission.status);
    setStatus(run, 'processing');
    progress.lastProviderStatus = submission.kind;
    if (submission.kind === 'unavailable') {
      // No definite answer: the same reference again, later. It may have arrived; the provider dedups it.
      await backOff(run, MAX_PROVIDER_BACKOFF_MS, submission.retryAfterMs);
    } else {
      progress.stage = 'follow';
      if (!probing) progress.delayMs = input.pollIntervalMs;
    }
  }
  return undefined;
}

/**
 * Looks the current reference up with back-off until the provider decides it: paid (on to the refund
 * watch), failed (decided by `afterFailedAttempt`), or "not found" long enough that the activity asks
 * for a probe (submitted again).
 */
async function followReference(run: SettlementRun): Promise<SettlementWorkflowStatus | undefined> {
  const { input, activities, progress } = run;
  while (progress.stage === 'follow') {
    await beforeEachStep(run);
    const poll = await activities.pollSettlementAttempt(input.settlementId, progress.attempt);
    if (poll.kind === 'settlement_closed') return setStatus(run, poll.status);
    if (poll.kind === 'succeeded') {
      progress.lastProviderStatus = 'SUCCESS';
      if (setStatus(run, poll.status) !== 'success') return progress.status;
      progress.stage = 'watch';
      progress.untilMs = Date.now() + input.refundWatchMs;
      progress.delayMs = input.pollIntervalMs;
    } else if (poll.kind === 'probe') {
      progress.lastProviderStatus = 'NOT_FOUND';
      progress.stage = 'submit';
    } else if (poll.kind === 'failed') {
      progress.lastProviderStatus = poll.reason;
      const compensated = await afterFailedAttempt(run);
      if (compensated) return compensated;
    } else {
      progress.lastProviderStatus = poll.kind === 'pending' ? poll.providerStatus : 'unavailable';
      await backOff(run, MAX_PROVIDER_BACKOFF_MS, poll.kind === 'unavailable' ? poll.retryAfterMs : undefined);
    }
  }
  return undefined;
}

/** After a failed reference: the next one after its pause (SETTLEMENT_RETRY_SCHEDULE), or, after the last, the debit reversed. */
async function afterFailedAttempt(run: SettlementRun): Promise<SettlementWorkflowStatus | undefined> {
  const { input, activities, progress } = run;
  if (progress.attempt >= input.maxAttempts) {
    return setStatus(run, await activities.failSettlement(input.settlementId, `all ${input.maxAttempts} submission attempts failed`));
  }
  progress.stage = 'pause';
  progress.untilMs = Date.now() + (input.retryScheduleMs[Math.min(progress.attempt - 1, input.retryScheduleMs.length - 1)] ?? 0);
  return undefined;
}

/** Waits out the pause after a failed reference, then starts the next attempt. */
async function pauseBeforeNextAttempt(run: SettlementRun): Promise<void> {
  const { progress } = run;
  while (progress.stage === 'pause') {
    await beforeEachStep(run);
    const left = (progress.untilMs ?? 0) - Date.now();
    if (left > 0) await sleep(left);
    startAttempt(run, progress.attempt + 1);
  }
}

/**
 * After success, asks the provider about a refund of the paid reference with back-off until the watch
 * ends, at once on a payout webhook; a refund reverses the debit.
 */
async function watchForRefund(run: SettlementRun): Promise<SettlementWorkflowStatus> {
  const { input, activities, progress, news } = run;
  if (progress.stage !== 'watch') throw new Error(`unknown settlement stage ${String(progress.stage)}`);
  for (;;) {
    await beforeEachStep(run);
    const left = (progress.untilMs ?? 0) - Date.now();
    const ref = providerRef(run)!;
    // A settlementRefundWorkflow that found this run still open signalled it instead of starting a new
    // run: ending the watch with that signal unread would leave SettlementStatus at success.
    if (left <= 0 && !news.has(ref)) return progress.status;
    const { waitMs, nextDelayMs } = pace(progress.delayMs, MAX_REFUND_WATCH_BACKOFF_MS);
    progress.delayMs = nextDelayMs;
    await condition(() => news.has(ref), Math.min(waitMs, Math.max(left, 1)));
    news.delete(ref);
    const check = await activities.refundSettlement(input.settlementId, ref);
    if (check.kind === 'unavailable') {
      progress.lastProviderStatus = 'unavailable';
      progress.delayMs = Math.max(progress.delayMs, check.retryAfterMs ?? 0);
      continue;
    }
    progress.lastProviderStatus = check.kind;
    // refunded here or by a settlementRefundWorkflow; any other status change ends the watch too.
    if (setStatus(run, check.status) !== 'success') return progress.status;
  }
}

/** Before every step of every stage: continue as new when the history is long, then raise the overdue alert if due. */
async function beforeEachStep(run: SettlementRun): Promise<void> {
  if (historyIsLong()) await continueAsNewWith<typeof settlementWorkflow>({ ...run.input, progress: run.progress });
  await reportIfOverdue(run);
}

/** One alert per attempt left undecided past the overdue clock (the destination check counts as attempt 0). */
async function reportIfOverdue({ input, activities, progress }: SettlementRun): Promise<void> {
  const stage = progress.stage;
  if (progress.overdueReported || (stage !== 'destination' && stage !== 'submit' && stage !== 'follow')) return;
  const undecidedForMs = Date.now() - (progress.undecidedSinceMs ?? Date.now());
  if (undecidedForMs < (input.overdueAfterMs ?? DEFAULT_OVERDUE_AFTER_MS)) return;
  await activities.reportOverdueSettlement(input.settlementId, progress.attempt, {
    stage,
    undecidedForMs,
    lastProviderStatus: progress.lastProviderStatus,
  });
  progress.overdueReported = true;
}

function providerRef({ input, progress }: SettlementRun): string | null {
  return progress.attempt > 0 ? `${input.merchantTxRef}-${progress.attempt}` : null;
}

function setStatus({ progress }: SettlementRun, status: SettlementWorkflowStatus): SettlementWorkflowStatus {
  if (progress.status !== status) upsertSearchAttributes([{ key: SETTLEMENT_STATUS, value: status }]);
  progress.status = status;
  return status;
}

function startAttempt({ input, progress }: SettlementRun, attempt: number): void {
  progress.attempt = attempt;
  progress.stage = 'submit';
  progress.delayMs = input.pollIntervalMs;
  progress.untilMs = null;
  progress.undecidedSinceMs = Date.now();
  progress.overdueReported = false;
}

/** Waits out the current back-off (at least `retryAfterMs`), waking early on news about the current reference. */
async function backOff(run: SettlementRun, capMs: number, retryAfterMs?: number): Promise<void> {
  const { waitMs, nextDelayMs } = pace(run.progress.delayMs, capMs, retryAfterMs);
  run.progress.delayMs = nextDelayMs;
  const ref = providerRef(run);
  if (ref === null) {
    await sleep(waitMs);
    return;
  }
  await condition(() => run.news.has(ref), waitMs);
  run.news.delete(ref);
}
