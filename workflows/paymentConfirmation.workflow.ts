import { continueAsNew, defineQuery, proxyLocalActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities/payments.activities';
import { backedOff, initialProgress, nextStep, notFoundRule, recordLookup } from '../src/contracts/confirmation-rules';
import type { ConfirmationOutcome, ConfirmationProgress, CreditResolution, PaymentConfirmationInput } from '../src/contracts/payment-confirmation.contract';
import type { ProviderTxnLookup } from '../src/contracts/payment-confirmation.contract';

// Local activities: each is a short call (a lookup, one transaction) that the worker runs itself, so a
// confirmation costs the server one workflow task instead of an activity task per call. After 10 s of
// local retries (the database down, say) a retry becomes a server timer: an outage never makes the
// workflow task heartbeat into a growing history.
const { lookupProviderTransaction, confirmPaymentCredit, reversePaymentCredit } = proxyLocalActivities<PaymentActivities>({
  startToCloseTimeout: '1 minute',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * A run continues as new once its history passes this many events (a lookup and a wait cost about
 * seven), so a confirmation that waits for days on an unreachable provider or a payment stuck in
 * PROCESSING keeps every history far below Temporal's limits.
 */
export const CONFIRMATION_HISTORY_LIMIT = 1_000;

export interface ConfirmationState {
  lookups: number;
  lastLookup: ProviderTxnLookup | null;
  /** Workflow time the provider first showed the transaction; null while it never has. */
  firstSeenAtMs: number | null;
  /** When "not known to the provider" starts to count: posting time plus the window. */
  deadlineMs: number;
  /** Why the workflow is waiting, or how it ended. */
  reason: string | null;
  outcome: ConfirmationOutcome | null;
  runs: number;
}

export const confirmationStatusQuery = defineQuery<ConfirmationState>('status');

/**
 * Confirms a provisional credit once the provider shows it SUCCESS (the confirm activity compares every
 * field with the database first); reverses it on a failure, a refund or a mismatch, or when the
 * provider still does not know it after the window that counts from posting time, by "not found"
 * answers spread over the window, the last after it (NotFoundRule). PROCESSING waits however long it
 * takes; a transaction the provider has shown once is never reversed by a later "not found"; an
 * unreachable provider never reverses anything. The decisions are confirmation-rules.ts.
 */
export async function paymentConfirmationWorkflow(input: PaymentConfirmationInput): Promise<ConfirmationOutcome> {
  // Workflow time at the first activation: runs started before postedAtMs existed counted from here.
  const postedAtMs = input.postedAtMs ?? Date.now();
  const deadlineMs = postedAtMs + input.windowMs;
  const rule = notFoundRule(input.windowMs, input.minNotFoundLookups);
  let progress: ConfirmationProgress = input.progress ?? initialProgress(input.pollIntervalMs);
  const state: ConfirmationState = {
    lookups: progress.lookups,
    lastLookup: null,
    firstSeenAtMs: progress.firstSeenAtMs,
    deadlineMs,
    reason: null,
    outcome: null,
    runs: progress.runs,
  };
  setHandler(confirmationStatusQuery, () => state);

  const noteLookup = (lookup: ProviderTxnLookup): void => {
    progress = recordLookup(progress, lookup, Date.now(), rule);
    Object.assign(state, { lookups: progress.lookups, lastLookup: lookup, firstSeenAtMs: progress.firstSeenAtMs });
  };
  const wait = async (ms: number, why: string): Promise<void> => {
    state.reason = why;
    await sleep(ms);
    progress = backedOff(progress);
  };

  for (;;) {
    const info = workflowInfo();
    if (info.historyLength >= CONFIRMATION_HISTORY_LIMIT || info.continueAsNewSuggested) {
      await continueAsNew<typeof paymentConfirmationWorkflow>({ ...input, postedAtMs, progress: { ...progress, runs: progress.runs + 1 } });
    }
    const lookup = await lookupProviderTransaction(input.providerTxnRef);
    noteLookup(lookup);
    const step = nextStep(progress, lookup, { nowMs: Date.now(), deadlineMs, pollIntervalMs: input.pollIntervalMs }, rule);
    if (step.kind === 'wait') {
      await wait(step.ms, step.why);
      continue;
    }
    const resolution: CreditResolution = step.kind === 'confirm' ? await confirmPaymentCredit(input.entryId) : await reversePaymentCredit(input.entryId, step.reason);
    if (resolution.kind === 'settled') {
      state.outcome = resolution.outcome;
      state.reason = resolution.reason;
      return resolution.outcome;
    }
    // The activity's own look at the provider did not support the decision: that answer counts, and the workflow waits.
    noteLookup(resolution.lookup);
    await wait(progress.delayMs, resolution.reason);
  }
}
