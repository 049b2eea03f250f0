import { defineQuery, proxyLocalActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import type { PaymentActivities } from '../activities/payments.activities';
import { continueAsNewWith, historyIsLong } from './continue-as-new';
import { backedOff, initialProgress, keptDelayMs, notFoundRule, recordLookup } from '../src/contracts/confirmation-rules';
import { ACCOUNT_REFS, PROVIDER_TXN_REFS } from '../src/contracts/search-attributes';
import type {
  BatchConfirmationInput,
  BatchPayment,
  BatchTally,
  ConfirmationOutcome,
  ConfirmationProgress,
} from '../src/contracts/payment-confirmation.contract';
import type { ProviderTxnLookup } from '../src/contracts/payment-confirmation.contract';

// One local activity per round: it reads the credits and their claims, looks them up, and confirms or
// reverses them itself, so a round costs the server one workflow task and the history one marker. Its
// retries after 10 s become server timers, so an outage never heartbeats a workflow task into a long history.
const { confirmPaymentBatch } = proxyLocalActivities<PaymentActivities>({
  startToCloseTimeout: '2 minutes',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * A run continues as new past HISTORY_EVENT_LIMIT events (a round costs about nine) or this many bytes
 * (each round's marker carries the results of the payments it asked about).
 */
export const BATCH_HISTORY_BYTES_LIMIT = 2 * 1024 * 1024;

/** One payment of the batch, as the `status` and `payment` queries show it. */
export interface BatchPaymentState {
  entryId: string;
  providerTxnRef: string;
  accountRef: string;
  lookups: number;
  lastLookup: ProviderTxnLookup | null;
  /** Workflow time the provider first showed the transaction; null while it never has. */
  firstSeenAtMs: number | null;
  /** When "not known to the provider" starts to count: this payment's posting time plus the window. */
  deadlineMs: number;
  /** When it is next looked up (null once finished). */
  nextLookupAtMs: number | null;
  /** Why it is waiting, or how it ended. */
  reason: string | null;
  /** null while waiting; `released` when its claim went to another confirmation. */
  outcome: ConfirmationOutcome | 'released' | null;
}

export interface BatchConfirmationState {
  batchId: string;
  runs: number;
  /** Workflow time before which the whole batch waits (the provider's Retry-After), or null. */
  pausedUntilMs: number | null;
  /** This run's payments: the ones it carried in, finished or not. */
  payments: BatchPaymentState[];
}

/** What the whole batch settled, over every run. */
export interface BatchConfirmationSummary extends BatchTally {
  runs: number;
}

export const batchConfirmationStatusQuery = defineQuery<BatchConfirmationState>('status');
/** One payment by its provider transaction reference or its entry id; null when this run does not hold it. */
export const batchPaymentQuery = defineQuery<BatchPaymentState | null, [string]>('payment');

interface Tracked {
  payment: BatchPayment;
  progress: ConfirmationProgress;
  state: BatchPaymentState;
}

/**
 * Confirms a batch of one tenant's provisional payment credits, each by the confirmation rules
 * (confirmation-rules.ts): each payment has its own window (from its own posting), its own
 * back-off and its own "seen" memory, and leaves the batch the moment it is decided, so a payment the
 * provider keeps PROCESSING never holds up the others. A round asks about the payments that are due;
 * the activity decides and moves the money. A Retry-After backs the whole batch off. Past the history
 * bound the run continues as new with only the unfinished payments (and search attributes naming them).
 */
export async function paymentConfirmationBatchWorkflow(input: BatchConfirmationInput): Promise<BatchConfirmationSummary> {
  const runs = input.runs ?? 1;
  let pausedUntilMs = input.pausedUntilMs ?? 0;
  const startedAtMs = Date.now();
  const rule = notFoundRule(input.windowMs, input.minNotFoundLookups);
  const tracked = input.payments.map((payment): Tracked => {
    const progress = payment.progress ?? initialProgress(input.pollIntervalMs);
    return {
      payment,
      progress,
      state: {
        entryId: payment.entryId,
        providerTxnRef: payment.providerTxnRef,
        accountRef: payment.accountRef,
        lookups: progress.lookups,
        lastLookup: null,
        firstSeenAtMs: progress.firstSeenAtMs,
        deadlineMs: payment.postedAtMs + input.windowMs,
        nextLookupAtMs: payment.dueAtMs ?? startedAtMs,
        reason: null,
        outcome: null,
      },
    };
  });
  const open = new Map(tracked.map((item) => [item.payment.entryId, item]));
  const summary: BatchConfirmationSummary = { confirmed: 0, reversed: 0, alreadySettled: 0, released: 0, ...input.tally, runs };
  setHandler(batchConfirmationStatusQuery, () => ({
    batchId: input.batchId,
    runs,
    pausedUntilMs: pausedUntilMs > Date.now() ? pausedUntilMs : null,
    payments: tracked.map((item) => item.state),
  }));
  setHandler(
    batchPaymentQuery,
    (ref) => tracked.find((item) => item.state.providerTxnRef === ref || item.state.entryId === ref)?.state ?? null,
  );

  const finish = (item: Tracked, outcome: BatchPaymentState['outcome'], reason: string): void => {
    Object.assign(item.state, { outcome, reason, nextLookupAtMs: null });
    open.delete(item.payment.entryId);
    if (outcome === 'confirmed') summary.confirmed += 1;
    else if (outcome === 'reversed') summary.reversed += 1;
    else if (outcome === 'already_settled') summary.alreadySettled += 1;
    else summary.released += 1;
  };
  const noteLookup = (item: Tracked, lookup: ProviderTxnLookup, nowMs: number): void => {
    item.progress = recordLookup(item.progress, lookup, nowMs, rule);
    Object.assign(item.state, { lookups: item.progress.lookups, lastLookup: lookup, firstSeenAtMs: item.progress.firstSeenAtMs });
  };

  while (open.size > 0) {
    if (historyIsLong(BATCH_HISTORY_BYTES_LIMIT)) {
      const carried: BatchPayment[] = [...open.values()].map((item) => ({
        ...item.payment,
        progress: item.progress,
        dueAtMs: item.state.nextLookupAtMs ?? Date.now(),
      }));
      await continueAsNewWith<typeof paymentConfirmationBatchWorkflow>(
        {
          ...input,
          payments: carried,
          runs: runs + 1,
          pausedUntilMs,
          tally: {
            confirmed: summary.confirmed,
            reversed: summary.reversed,
            alreadySettled: summary.alreadySettled,
            released: summary.released,
          },
        },
        searchAttributesNaming(carried),
      );
    }
    const nowMs = Date.now();
    const nextDueMs = Math.max(pausedUntilMs, Math.min(...[...open.values()].map((item) => item.state.nextLookupAtMs ?? nowMs)));
    if (nextDueMs > nowMs) {
      await sleep(nextDueMs - nowMs);
      continue;
    }
    // Longest overdue first: payments a 429 left unasked lead the next round instead of waiting behind
    // ones just asked, so a provider that throttles every round still reaches each payment in turn.
    const due = [...open.values()]
      .filter((item) => (item.state.nextLookupAtMs ?? nowMs) <= nowMs)
      .sort((a, b) => (a.state.nextLookupAtMs ?? nowMs) - (b.state.nextLookupAtMs ?? nowMs));
    const round = await confirmPaymentBatch(
      input.batchId,
      due.map((item) => item.payment.entryId),
    );
    const answeredAtMs = Date.now();
    for (const result of round.results) {
      const item = open.get(result.entryId);
      if (!item) continue;
      if (result.kind === 'settled') {
        if (result.lookup) noteLookup(item, result.lookup, answeredAtMs);
        finish(item, result.outcome, result.reason);
      } else if (result.kind === 'released') {
        finish(item, 'released', 'its claim belongs to another confirmation');
      } else if (result.kind === 'kept') {
        noteLookup(item, result.lookup, answeredAtMs);
        const clock = { nowMs: answeredAtMs, deadlineMs: item.state.deadlineMs, pollIntervalMs: input.pollIntervalMs };
        const retryAfterMs = result.lookup.kind === 'unavailable' ? (result.lookup.retryAfterMs ?? 0) : 0;
        const delayMs = Math.max(keptDelayMs(item.progress, result.lookup, clock, rule), retryAfterMs);
        item.progress = backedOff(item.progress);
        Object.assign(item.state, { reason: result.reason, nextLookupAtMs: answeredAtMs + delayMs });
      }
      // skipped: still due; the pause below decides when the batch asks again.
    }
    if (round.throttledForMs !== null) {
      pausedUntilMs = answeredAtMs + Math.max(round.throttledForMs, input.pollIntervalMs);
      for (const item of open.values())
        if (item.state.reason === null) item.state.reason = 'the provider asked the batch to back off (Retry-After)';
    }
  }
  return summary;
}

/**
 * The next run's search attributes: this run's, with the two lists naming only the payments it carries
 * on. Undefined when this run has no lists (the time-skipping test server has none).
 */
function searchAttributesNaming(carried: BatchPayment[]): SearchAttributePair[] | undefined {
  const current = workflowInfo().typedSearchAttributes;
  if (current.get(PROVIDER_TXN_REFS) === undefined) return undefined;
  return [
    ...current.getAll().filter((pair) => pair.key.name !== PROVIDER_TXN_REFS.name && pair.key.name !== ACCOUNT_REFS.name),
    { key: PROVIDER_TXN_REFS, value: [...new Set(carried.map((payment) => payment.providerTxnRef))] },
    { key: ACCOUNT_REFS, value: [...new Set(carried.map((payment) => payment.accountRef))] },
  ];
}
