import type { Jobs } from '../contracts/jobs';
import { merchantTxRefOfScheduledPayout } from '../contracts/scheduled-payout.contract';
import type { Db } from '../db';
import type { Logger } from '../logger';
import { startEach, type RestartPlan } from '../workflow-starts/workflow-restarts';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { createScheduledPayoutsRepo } from './scheduled-payouts.repo';

/**
 * Scheduled payouts whose run stopped (terminated, timed out, cancelled, or failed) while they are still scheduled:
 * the convergence check starts each again under its workflow id. The new run waits what is left of the time (or starts
 * the payout at once when it has passed); its start and a cancel are decided on the payout's row, so nothing is paid
 * twice or after a cancel. A payout that started, was cancelled or was refused is done.
 */
export function scheduledPayoutRestartPlan(deps: {
  db: Db;
  jobs: Pick<Jobs, 'scheduledPayout'>;
  starter: WorkflowStarter;
  logger: Logger;
}): RestartPlan {
  const { db, jobs, starter, logger } = deps;
  const payouts = createScheduledPayoutsRepo(db);
  return {
    workflowType: 'scheduledPayoutWorkflow',
    watermark: 'scheduled-payout-restarts',
    keyOf: merchantTxRefOfScheduledPayout,
    async resume(merchantTxRefs) {
      const open = await payouts.stillScheduled(merchantTxRefs);
      return startEach(
        starter,
        logger,
        open.map((payout) =>
          jobs.scheduledPayout({
            merchantTxRef: payout.merchantTxRef,
            tenantId: payout.tenantId,
            accountRef: payout.accountRef,
            scheduledFor: payout.scheduledFor,
          }),
        ),
      );
    },
  };
}
