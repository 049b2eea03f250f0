import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  defineQuery,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ReconciliationActivities } from '../activities/reconciliation.activities';
import { continueAsNewWith } from './continue-as-new';
import { MAX_PROVIDER_BACKOFF_MS, pace } from './pacing';
import { RECONCILIATION_STATUS } from '../src/contracts/search-attributes';
import type {
  ReconciliationInput,
  ReconciliationPosition,
  ReconciliationProgress,
  ReconciliationSummary,
  ReconciliationWorkflowState,
} from '../src/contracts/reconciliation.contract';

/** Activity calls (20 pages each) per execution: about a million provider transactions, a few hundred history events. */
const BATCHES_PER_EXECUTION = 100;
/** The first pause after a provider call got no answer; it grows by half each time the next one gets none either. */
const FIRST_UNANSWERED_PAUSE_MS = 2_000;

// Run bookkeeping is database work only: retried until it lands.
const bookkeeping = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export const reconciliationStatusQuery = defineQuery<ReconciliationWorkflowState>('status');

/** The deepest message of a failure chain: what actually went wrong, not "Activity task failed". */
function reasonOf(error: unknown): string {
  let current: unknown = error;
  let reason = error instanceof Error ? error.message : String(error);
  while (current instanceof Error) {
    reason = current.message || reason;
    current = current.cause;
  }
  return reason;
}

/**
 * Reconciles one window of the provider's records against the ledger: pages through them in
 * activities that heartbeat their position (a window of any size in bounded memory), continuing as new
 * every BATCHES_PER_EXECUTION calls so the history stays small, then finishes the run (daily totals,
 * stuck settlements, the wallet, counts). A provider call that gets no answer is counted by the step
 * and asked again here after a pause (at least its Retry-After); `providerAttempts` unanswered in a row
 * make the run fail, visibly: the run is marked failed with the reason and the workflow fails; nothing
 * else changes.
 */
export async function reconciliationWorkflow(input: ReconciliationInput): Promise<ReconciliationSummary> {
  const providerRetry = {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: input.providerAttempts,
    nonRetryableErrorTypes: ['ProviderRejected', 'ReconciliationRunNotFound'],
  };
  const provider = proxyActivities<ReconciliationActivities>({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '1 minute',
    retry: providerRetry,
  });
  const batchesPerExecution = Math.max(1, input.batchesPerExecution ?? BATCHES_PER_EXECUTION);
  const progress: ReconciliationProgress = input.carried?.progress ?? { pages: 0, providerTransactions: 0, repaired: 0 };
  const state: ReconciliationWorkflowState = {
    runId: input.carried?.runId ?? input.runId ?? null,
    phase: input.carried ? 'reconciling' : 'opening',
    position: input.carried?.position ?? null,
    progress,
    executions: input.carried?.executions ?? 1,
    summary: null,
    error: null,
  };
  setHandler(reconciliationStatusQuery, () => state);

  const reconcile = async (): Promise<ReconciliationSummary | 'continue'> => {
    if (!input.carried) {
      upsertSearchAttributes([{ key: RECONCILIATION_STATUS, value: 'running' }]);
      state.runId ??= (await bookkeeping.openScheduledReconciliationRun(input.lookBackMs ?? 0, input.graceMs ?? 0)).runId;
      await bookkeeping.beginReconciliationRun(state.runId);
      state.phase = 'reconciling';
    }
    const runId = state.runId!;
    let position: ReconciliationPosition | null = state.position;
    let unansweredInARow = 0;
    let pauseMs = FIRST_UNANSWERED_PAUSE_MS;
    for (let batches = 0; position?.source !== 'done'; batches += 1) {
      if (batches >= batchesPerExecution) return 'continue';
      const result = await provider.reconcileProviderPages(runId, position);
      position = result.position;
      state.position = position;
      progress.pages += result.pages;
      progress.providerTransactions += result.providerTransactions;
      progress.repaired += result.repaired;
      if (result.waitMs !== undefined) {
        // The tenant's hourly budget of provider calls is spent: a durable timer, then on from the same position.
        state.phase = 'waiting_for_budget';
        await sleep(result.waitMs);
        state.phase = 'reconciling';
      }
      if (result.unanswered) {
        unansweredInARow += 1;
        if (unansweredInARow >= input.providerAttempts)
          throw ApplicationFailure.nonRetryable(result.unanswered.reason, 'ProviderUnavailable');
        const { waitMs, nextDelayMs } = pace(pauseMs, MAX_PROVIDER_BACKOFF_MS, result.unanswered.retryAfterMs ?? undefined);
        pauseMs = nextDelayMs;
        await sleep(waitMs);
      } else {
        unansweredInARow = 0;
        pauseMs = FIRST_UNANSWERED_PAUSE_MS;
      }
    }
    state.phase = 'finishing';
    return provider.finishReconciliationRun(runId);
  };

  let result: ReconciliationSummary | 'continue';
  try {
    result = await reconcile();
  } catch (error) {
    state.phase = 'failed';
    state.error = reasonOf(error);
    if (state.runId) {
      const runId = state.runId;
      await CancellationScope.nonCancellable(() => bookkeeping.failReconciliationRun(runId, state.error!));
    }
    upsertSearchAttributes([{ key: RECONCILIATION_STATUS, value: 'failed' }]);
    if (error instanceof ActivityFailure)
      throw ApplicationFailure.nonRetryable(`reconciliation run failed: ${state.error}`, 'ReconciliationFailed');
    throw error;
  }
  if (result === 'continue') {
    return continueAsNewWith<typeof reconciliationWorkflow>({
      ...input,
      runId: state.runId!,
      carried: { runId: state.runId!, position: state.position!, progress, executions: state.executions + 1 },
    });
  }
  state.summary = result;
  state.phase = 'succeeded';
  upsertSearchAttributes([{ key: RECONCILIATION_STATUS, value: result.outcome }]);
  return result;
}
