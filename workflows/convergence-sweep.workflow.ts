import { proxyActivities } from '@temporalio/workflow';
import type { SweepActivities } from '../activities/sweep.activities';
import type { ClaimReleaseResult, SettlementRestartResult, SettlementWatchResult, SweepResult } from '../src/contracts/sweep.contract';

// The sweep heartbeats as it goes: a worker that dies mid-sweep is noticed in 30 s, not at the end of
// the start-to-close timeout (the Schedule skips runs while one is still open).
const { sweepOutbox, restartStalledConfirmations, restartStalledSettlements, watchSettlementReferences } = proxyActivities<SweepActivities>(
  {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 3 },
  },
);

export interface ConvergenceSweepResult extends SweepResult {
  confirmations: ClaimReleaseResult;
  settlements: SettlementRestartResult;
  settlementWatch: SettlementWatchResult;
}

/**
 * Run by a Temporal Schedule: starts every workflow whose start a crash or an outage left behind, then
 * puts back in the queue the credits of batch confirmations that stopped (a new batch confirms them),
 * and restarts the settlements that stopped while still pending or processing (a run that failed for good is
 * parked with an alert instead) and the settlement batches whose run stopped before they ended; then looks up the settlement references the ledger failed or refunded
 * that are due, so a payout the provider made after all is raised within a sweep or two.
 */
export async function convergenceSweepWorkflow(): Promise<ConvergenceSweepResult> {
  const outbox = await sweepOutbox();
  const confirmations = await restartStalledConfirmations();
  const settlements = await restartStalledSettlements();
  const settlementWatch = await watchSettlementReferences();
  return { ...outbox, confirmations, settlements, settlementWatch };
}
