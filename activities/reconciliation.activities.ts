import { ApplicationFailure, Context } from '@temporalio/activity';
import { ProviderRejectedError } from '../src/provider/errors';
import {
  ReconciliationRunNotFoundError,
  type PageProgress,
  type ReconciliationExecutionService,
} from '../src/reconciliation/reconciliation-execution.service';
import type {
  ReconciliationPagesResult,
  ReconciliationPosition,
  ReconciliationRunHandle,
  ReconciliationSummary,
} from '../src/contracts/reconciliation.contract';

/** Failures no retry can change: a provider that refuses the call outright, a run that does not exist. */
async function failingForGood<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProviderRejectedError) throw ApplicationFailure.nonRetryable(error.message, 'ProviderRejected');
    if (error instanceof ReconciliationRunNotFoundError) throw ApplicationFailure.nonRetryable(error.message, 'ReconciliationRunNotFound');
    throw error;
  }
}

export function createReconciliationActivities(deps: { reconciliation: ReconciliationExecutionService }) {
  const { reconciliation } = deps;
  return {
    openScheduledReconciliationRun(lookBackMs: number, graceMs: number): Promise<ReconciliationRunHandle> {
      return reconciliation.openScheduledRun(Context.current().info.workflowExecution!.workflowId, lookBackMs, graceMs);
    },

    beginReconciliationRun(runId: string): Promise<ReconciliationRunHandle> {
      return failingForGood(() => reconciliation.begin(runId));
    },

    /**
     * Pages through the provider's records from `position`, heartbeating the position after each page;
     * a retry (a crash, a heartbeat timeout, a provider error) resumes from the last heartbeat.
     */
    reconcileProviderPages(runId: string, position: ReconciliationPosition | null): Promise<ReconciliationPagesResult> {
      const context = Context.current();
      const resumed = context.info.heartbeatDetails as PageProgress | undefined;
      const start: PageProgress | null = resumed ?? (position ? { position, pages: 0, providerTransactions: 0, repaired: 0 } : null);
      return failingForGood(() => reconciliation.processPages(runId, start, (progress) => context.heartbeat(progress)));
    },

    finishReconciliationRun(runId: string): Promise<ReconciliationSummary> {
      return failingForGood(() => reconciliation.finish(runId));
    },

    failReconciliationRun(runId: string, reason: string): Promise<void> {
      return reconciliation.fail(runId, reason);
    },
  };
}

export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;
