import { proxyActivities } from '@temporalio/workflow';
import type { DynamicAccountActivities } from '../activities/dynamic-accounts.activities';
import type { DynamicAccountReturnsResult } from '../src/contracts/dynamic-account-returns.contract';

// The activity heartbeats after each payment: a worker that dies mid-run is noticed in 30 s and the activity is
// retried (the Schedule skips runs while this one is open). A retry pays nothing twice: see the activity.
const { returnMismatchedPayments } = proxyActivities<DynamicAccountActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/** Run by a Temporal Schedule: pays back to their payers the mismatched payments dynamic accounts hold to return. */
export async function dynamicAccountReturnsWorkflow(): Promise<DynamicAccountReturnsResult> {
  return returnMismatchedPayments();
}
