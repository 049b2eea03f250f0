import { Context } from '@temporalio/activity';
import type { RestartResult, WorkflowRestarter } from '../src/jobs/workflow-restarts';
import type { SweepResult, WorkflowStarter } from '../src/jobs/workflow-starter';
import type { Logger } from '../src/logger';

export function createSweepActivities(deps: {
  starter: WorkflowStarter;
  confirmationRestarts: WorkflowRestarter;
  settlementRestarts: WorkflowRestarter;
  graceMs: number;
  logger: Logger;
}) {
  const { starter, confirmationRestarts, settlementRestarts, graceMs, logger } = deps;
  return {
    async sweepOutbox(): Promise<SweepResult> {
      let total: SweepResult = { found: 0, started: 0, failed: 0 };
      // Batches until the backlog is gone or a batch stops making progress.
      for (;;) {
        const batch = await starter.sweep(graceMs, 500, { onProgress: () => Context.current().heartbeat() });
        total = { found: total.found + batch.found, started: total.started + batch.started, failed: total.failed + batch.failed };
        if (batch.found < 500 || batch.started === 0) break;
      }
      if (total.found > 0) logger.info(total, 'convergence sweep started left-behind workflows');
      return total;
    },

    /** Starts again every confirmation whose run failed or was terminated while its credit is still provisional. */
    restartStalledConfirmations(): Promise<RestartResult> {
      return confirmationRestarts.restartStalled(() => Context.current().heartbeat());
    },

    /** Starts again every settlement whose run failed or was terminated while it is still pending or processing. */
    restartStalledSettlements(): Promise<RestartResult> {
      return settlementRestarts.restartStalled(() => Context.current().heartbeat());
    },
  };
}

export type SweepActivities = ReturnType<typeof createSweepActivities>;
