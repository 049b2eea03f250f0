import { proxyActivities } from '@temporalio/workflow';
import type { SweepActivities } from '../activities/sweep.activities';
import type { SweepResult } from '../src/jobs/workflow-starter';

const { sweepOutbox } = proxyActivities<SweepActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

/** Run by a Temporal Schedule: starts every workflow whose start a crash or an outage left behind. */
export async function convergenceSweepWorkflow(): Promise<SweepResult> {
  return sweepOutbox();
}
