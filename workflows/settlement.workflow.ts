import { condition, proxyActivities, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { SettlementActivities } from '../activities/settlements.activities';
import { continueAsNewWith, historyIsLong } from './continue-as-new';
import { MAX_PROVIDER_BACKOFF_MS, MAX_REFUND_WATCH_BACKOFF_MS, pace } from './pacing';
import { SETTLEMENT_STATUS } from '../src/contracts/search-attributes';
import { DEFAULT_OVERDUE_AFTER_MS, payoutSignal, type SettlementInput, type SettlementProgress, settlementStatusQuery, type SettlementWorkflowStatus } from '../src/contracts/settlement.contract';

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
 * Long waits (a transfer PROCESSING for days, an outage) continue as new, carrying `progress`.
 * A run started on a settlement already under way (the sweep restarts one whose run was terminated or
 * failed) picks up at the attempt the database holds: it follows that reference, never a new one.
 */
export async function settlementWorkflow(input: SettlementInput): Promise<SettlementWorkflowStatus> {
  const activities = settlementActivities(input.activityTimeoutMs);
  const progress: SettlementProgress = input.progress ?? { stage: 'destination', status: 'pending', attempt: 0, delayMs: input.pollIntervalMs, untilMs: null, lastProviderStatus: null };
  const overdueAfterMs = input.overdueAfterMs ?? DEFAULT_OVERDUE_AFTER_MS;
  progress.undecidedSinceMs ??= Date.now();
  const providerRef = (): string | null => (progress.attempt > 0 ? `${input.merchantTxRef}-${progress.attempt}` : null);
  // References the provider has sent news about (payout webhooks) since the workflow last waited for them.
  const news = new Set<string>();
  setHandler(settlementStatusQuery, () => ({
    status: progress.status,
    stage: progress.stage,
    attempt: progress.attempt,
    providerRef: providerRef(),
    lastProviderStatus: progress.lastProviderStatus,
  }));
  setHandler(payoutSignal, (signal) => {
    news.add(signal.providerRef);
  });

  const setStatus = (status: SettlementWorkflowStatus): SettlementWorkflowStatus => {
    if (progress.status !== status) upsertSearchAttributes([{ key: SETTLEMENT_STATUS, value: status }]);
    progress.status = status;
    return status;
  };

  /** Waits out the current back-off (at least `retryAfterMs`), waking early on news about the current reference. */
  const backOff = async (capMs: number, retryAfterMs?: number): Promise<void> => {
    const { waitMs, nextDelayMs } = pace(progress.delayMs, capMs, retryAfterMs);
    progress.delayMs = nextDelayMs;
    const ref = providerRef();
    if (ref === null) {
      await sleep(waitMs);
      return;
    }
    await condition(() => news.has(ref), waitMs);
    news.delete(ref);
  };

  const startAttempt = (attempt: number): void => {
    progress.attempt = attempt;
    progress.stage = 'submit';
    progress.delayMs = input.pollIntervalMs;
    progress.untilMs = null;
    progress.undecidedSinceMs = Date.now();
    progress.overdueReported = false;
  };

  /** One alert per attempt left undecided past the overdue clock (the destination check counts as attempt 0). */
  const reportIfOverdue = async (): Promise<void> => {
    const stage = progress.stage;
    if (progress.overdueReported || (stage !== 'destination' && stage !== 'submit' && stage !== 'follow')) return;
    const undecidedForMs = Date.now() - (progress.undecidedSinceMs ?? Date.now());
    if (undecidedForMs < overdueAfterMs) return;
    await activities.reportOverdueSettlement(input.settlementId, progress.attempt, { stage, undecidedForMs, lastProviderStatus: progress.lastProviderStatus });
    progress.overdueReported = true;
  };

  for (;;) {
    if (historyIsLong()) await continueAsNewWith<typeof settlementWorkflow>({ ...input, progress });
    await reportIfOverdue();

    switch (progress.stage) {
      case 'destination': {
        const check = await activities.checkSettlementDestination(input.settlementId);
        if (check.kind === 'closed') return setStatus(check.status);
        if (check.kind === 'invalid') return setStatus(await activities.failSettlement(input.settlementId, check.reason));
        if (check.kind === 'ok' && check.resume) {
          startAttempt(check.resume.attempt);
          progress.stage = check.resume.stage;
          setStatus('processing');
        } else if (check.kind === 'ok') startAttempt(1);
        else await backOff(MAX_PROVIDER_BACKOFF_MS, check.retryAfterMs);
        break;
      }

      case 'submit': {
        // A probe (the same reference again after "not found" for the grace) keeps the lookups' back-off:
        // a reference probed again and again must not restart a burst of fast lookups each time.
        const probing = progress.lastProviderStatus === 'NOT_FOUND';
        const submission = await activities.submitSettlementAttempt(input.settlementId, progress.attempt);
        if (submission.kind === 'settlement_closed') return setStatus(submission.status);
        setStatus('processing');
        progress.lastProviderStatus = submission.kind;
        if (submission.kind === 'unavailable') {
          // No definite answer: the same reference again, later. It may have arrived; the provider dedups it.
          await backOff(MAX_PROVIDER_BACKOFF_MS, submission.retryAfterMs);
        } else {
          progress.stage = 'follow';
          if (!probing) progress.delayMs = input.pollIntervalMs;
        }
        break;
      }

      case 'follow': {
        const poll = await activities.pollSettlementAttempt(input.settlementId, progress.attempt);
        if (poll.kind === 'settlement_closed') return setStatus(poll.status);
        if (poll.kind === 'succeeded') {
          progress.lastProviderStatus = 'SUCCESS';
          if (setStatus(poll.status) !== 'success') return progress.status;
          progress.stage = 'watch';
          progress.untilMs = Date.now() + input.refundWatchMs;
          progress.delayMs = input.pollIntervalMs;
        } else if (poll.kind === 'probe') {
          progress.lastProviderStatus = 'NOT_FOUND';
          progress.stage = 'submit';
        } else if (poll.kind === 'failed') {
          progress.lastProviderStatus = poll.reason;
          if (progress.attempt >= input.maxAttempts) {
            return setStatus(await activities.failSettlement(input.settlementId, `all ${input.maxAttempts} submission attempts failed`));
          }
          progress.stage = 'pause';
          progress.untilMs = Date.now() + (input.retryScheduleMs[Math.min(progress.attempt - 1, input.retryScheduleMs.length - 1)] ?? 0);
        } else {
          progress.lastProviderStatus = poll.kind === 'pending' ? poll.providerStatus : 'unavailable';
          await backOff(MAX_PROVIDER_BACKOFF_MS, poll.kind === 'unavailable' ? poll.retryAfterMs : undefined);
        }
        break;
      }

      case 'pause': {
        const left = (progress.untilMs ?? 0) - Date.now();
        if (left > 0) await sleep(left);
        startAttempt(progress.attempt + 1);
        break;
      }

      case 'watch': {
        const left = (progress.untilMs ?? 0) - Date.now();
        const ref = providerRef()!;
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
          break;
        }
        progress.lastProviderStatus = check.kind;
        // refunded here or by a settlementRefundWorkflow; any other status change ends the watch too.
        if (setStatus(check.status) !== 'success') return progress.status;
        break;
      }

      default:
        throw new Error(`unknown settlement stage ${String(progress.stage satisfies never)}`);
    }
  }
}
