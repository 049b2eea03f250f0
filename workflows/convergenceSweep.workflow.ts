import { proxyActivities } from '@temporalio/workflow';
import type { SweepActivities } from '../activities/sweep.activities';
import type { SweepResult } from '../src/jobs/workflow-starter';

// The sweep heartbeats as it goes: a worker that dies mid-sweep is noticed in 30 s, not at the end of
// the start-to-close timeout (the Schedule skips runs while one is still open).
const { sweepOutbox } = proxyActivities<SweepActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/** Run by a Temporal Schedule: starts every workflow whose start a crash or an outage left behind. */
export async function convergenceSweepWorkflow(): Promise<SweepResult> {
  return sweepOutbox();
}
