import { proxyActivities } from '@temporalio/workflow';
import type { ConvergenceCheckActivities } from '../activities/convergence-check.activities';
import type {
  ClaimReleaseResult,
  SettlementRestartResult,
  SettlementWatchResult,
  LeftBehindStartsResult,
} from '../src/contracts/convergence-check.contract';

// The convergence check heartbeats as it goes: a worker that dies mid-check is noticed in 30 s, not at the end of
// the start-to-close timeout (the Schedule skips runs while one is still open).
const { sweepOutbox, restartStalledConfirmations, restartStalledSettlements, watchSettlementReferences } =
  proxyActivities<ConvergenceCheckActivities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 3 },
  });

export interface ConvergenceCheckResult extends LeftBehindStartsResult {
  confirmations: ClaimReleaseResult;
  settlements: SettlementRestartResult;
  settlementWatch: SettlementWatchResult;
}

/**
 * Run by a Temporal Schedule: starts every workflow whose start a crash or an outage left behind, then
 * puts back in the queue the credits of batch confirmations that stopped (a new batch confirms them),
 * and restarts the settlements that stopped while still pending or processing (a run that failed for good is
 * parked with an alert instead) and the settlement batches whose run stopped before they ended; then looks up the settlement references the ledger failed or refunded
 * that are due, so a payout the provider made after all is raised within a convergence check or two.
 */
// The workflow type keeps its first name (`convergenceSweepWorkflow`), as do the activity types: recorded
// histories, running runs and the Schedule name them (docs/glossary.md).
export async function convergenceSweepWorkflow(): Promise<ConvergenceCheckResult> {
  const outbox = await sweepOutbox();
  const confirmations = await restartStalledConfirmations();
  const settlements = await restartStalledSettlements();
  const settlementWatch = await watchSettlementReferences();
  return { ...outbox, confirmations, settlements, settlementWatch };
}
