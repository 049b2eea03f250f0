import { patched, proxyActivities } from '@temporalio/workflow';
import type { SweepActivities } from '../activities/sweep.activities';
import type { RestartResult } from '../src/jobs/confirmation-restarts';
import type { SweepResult } from '../src/jobs/workflow-starter';
import { SWEEP_RESTARTS_CONFIRMATIONS } from './patches';

// The sweep heartbeats as it goes: a worker that dies mid-sweep is noticed in 30 s, not at the end of
// the start-to-close timeout (the Schedule skips runs while one is still open).
const { sweepOutbox, restartStalledConfirmations } = proxyActivities<SweepActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

export interface ConvergenceSweepResult extends SweepResult {
  /** Null in runs started before confirmations were restarted. */
  confirmations: RestartResult | null;
}

/**
 * Run by a Temporal Schedule: starts every workflow whose start a crash or an outage left behind, then
 * restarts the confirmations that stopped (failed or terminated) while their credit is provisional.
 */
export async function convergenceSweepWorkflow(): Promise<ConvergenceSweepResult> {
  const outbox = await sweepOutbox();
  const confirmations = patched(SWEEP_RESTARTS_CONFIRMATIONS) ? await restartStalledConfirmations() : null;
  return { ...outbox, confirmations };
}
