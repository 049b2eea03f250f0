import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { BalanceSweepActivities } from '../activities/balance-sweeps.activities';
import { SCHEDULED_START_TIME, type BalanceSweepInput, type BalanceSweepRunResult } from '../src/contracts/balance-sweep.contract';

// A run records its outcome once per period, so a retry after a crash or an outage answers what the first attempt did.
const { runBalanceSweep } = proxyActivities<BalanceSweepActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/**
 * Started by an account's balance sweep Schedule: sweeps the period the run was due in (the Schedule's
 * time, not the start's, so a run caught up after an outage still sweeps its own day or slot). Started
 * by hand (no scheduled time), the run's own start time names the period.
 */
export async function balanceSweepWorkflow(input: BalanceSweepInput): Promise<BalanceSweepRunResult> {
  const info = workflowInfo();
  const scheduledAt = info.typedSearchAttributes.get(SCHEDULED_START_TIME) ?? info.runStartTime;
  return runBalanceSweep({ tenantId: input.tenantId, accountId: input.accountId, scheduledAtMs: scheduledAt.getTime() });
}
