import { Context } from '@temporalio/activity';
import type { BatchClaimReleaser } from '../src/payment-confirmation/batch-claim-releases';
import type { WorkflowRestarter } from '../src/workflow-starts/workflow-restarts';
import type { WorkflowStarter } from '../src/workflow-starts/workflow-starter';
import type { Logger } from '../src/logger';
import type { SettlementWatchService } from '../src/reconciliation/settlement-watch.service';
import type {
  ClaimReleaseResult,
  SettlementRestartResult,
  SettlementWatchResult,
  LeftBehindStartsResult,
} from '../src/contracts/convergence-check.contract';

/**
 * How long one convergence check may start workflows: well inside the activity's heartbeat and start-to-close
 * timeouts, so a retry never runs beside a convergence check that is still going, and the next Schedule run picks up
 * what is left. The worker's outbox drainer does the steady work; the convergence check is the backstop.
 */
export const OUTBOX_START_BUDGET_MS = 45_000;

/** How long one convergence check may spend on provider lookups of watched settlement references; what is left is due at the next convergence check. */
export const WATCH_BUDGET_MS = 20_000;

export function createConvergenceCheckActivities(deps: {
  starter: WorkflowStarter;
  settlementRestarts: WorkflowRestarter;
  settlementBatchRestarts: WorkflowRestarter;
  scheduledPayoutRestarts: WorkflowRestarter;
  settlementWatch: SettlementWatchService;
  claimReleases: BatchClaimReleaser;
  graceMs: number;
  logger: Logger;
}) {
  const { starter, settlementRestarts, settlementBatchRestarts, scheduledPayoutRestarts, settlementWatch, claimReleases, graceMs, logger } =
    deps;
  return {
    // Activity types keep their first names (`sweepOutbox`): recorded histories name them.
    async sweepOutbox(): Promise<LeftBehindStartsResult> {
      const context = Context.current();
      // Leased rows are never started twice, and a cancelled activity (heartbeat timeout, worker stopping) stops taking rows.
      const total = await starter.drain({
        graceMs,
        limit: 500,
        budgetMs: OUTBOX_START_BUDGET_MS,
        signal: context.cancellationSignal,
        onProgress: () => context.heartbeat(),
      });
      if (total.found > 0) logger.info(total, 'convergence check started left-behind workflows');
      return total;
    },

    /**
     * Puts back in the queue the credits of batch confirmations that stopped (failed, terminated, timed out, never started); a new batch
     * confirms them.
     */
    restartStalledConfirmations(): Promise<ClaimReleaseResult> {
      return claimReleases.releaseStopped(graceMs, () => Context.current().heartbeat());
    },

    /**
     * Starts again every settlement whose run was terminated, timed out or cancelled while it is still
     * pending or processing (a run that failed for good is parked with an alert finding instead), then every
     * settlement batch whose run stopped before the batch ended.
     */
    async restartStalledSettlements(): Promise<SettlementRestartResult> {
      const heartbeat = () => Context.current().heartbeat();
      const settlements = await settlementRestarts.restartStalled(heartbeat);
      return {
        ...settlements,
        batches: await settlementBatchRestarts.restartStalled(heartbeat),
        scheduledPayouts: await scheduledPayoutRestarts.restartStalled(heartbeat),
      };
    },

    /** Looks up the settlement references the ledger failed or refunded that are due; a paid one is an alert at once. */
    async watchSettlementReferences(): Promise<SettlementWatchResult> {
      const context = Context.current();
      const result = await settlementWatch.tick({
        budgetMs: WATCH_BUDGET_MS,
        signal: context.cancellationSignal,
        onProgress: () => context.heartbeat(),
      });
      if (result.raised > 0) logger.warn(result, 'settlement watch raised findings');
      return result;
    },
  };
}

export type ConvergenceCheckActivities = ReturnType<typeof createConvergenceCheckActivities>;
