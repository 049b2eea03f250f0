import { makeContinueAsNewFunc, workflowInfo, type Workflow } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';

/**
 * How every workflow continues as new. Temporal replays a run's whole history whenever a worker picks it
 * up without it cached, and terminates one whose history grows too long, so runs that can last for days
 * hand over to a new run carrying what they still need.
 */

/**
 * Runs continue as new past this many history events (each provider call with its wait adds about
 * ten), so no history grows beyond a few thousand whatever the provider does.
 */
export const HISTORY_EVENT_LIMIT = 1_000;

/** The history has reached HISTORY_EVENT_LIMIT events (or `maxBytes`, when given), or the server suggests continuing as new. */
export function historyIsLong(maxBytes = Number.POSITIVE_INFINITY): boolean {
  const { historyLength, historySize, continueAsNewSuggested } = workflowInfo();
  return historyLength >= HISTORY_EVENT_LIMIT || historySize >= maxBytes || continueAsNewSuggested;
}

/**
 * Ends this run and starts the next one of the same workflow with `input`. The next run keeps this run's
 * search attributes unless `typedSearchAttributes` replaces them.
 */
export function continueAsNewWith<F extends Workflow>(
  input: Parameters<F>[0],
  typedSearchAttributes?: SearchAttributePair[],
): Promise<never> {
  return makeContinueAsNewFunc<F>(typedSearchAttributes ? { typedSearchAttributes } : {})(...([input] as Parameters<F>));
}
