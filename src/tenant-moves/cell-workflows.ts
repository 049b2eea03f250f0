import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Jobs } from '../contracts/jobs';
import { balanceSweepScheduleId } from '../contracts/balance-sweep.contract';
import { scheduledPayoutWorkflowId } from '../contracts/scheduled-payout.contract';
import { settlementBatchWorkflowId } from '../contracts/settlement-batch.contract';
import { settlementWorkflowId } from '../contracts/settlement.contract';
import { webhookDeliveryWorkflowId } from '../contracts/webhook-delivery.contract';
import type { BalanceSweepSchedules } from '../balance-sweeps/balance-sweep-schedules';
import type { Db } from '../db';
import type { Logger } from '../logger';
import type { RaiseSettlementFinding } from '../settlements/settlement-findings';
import { scheduledPayoutRestartPlan } from '../settlements/scheduled-payout-restarts';
import { settlementRestartPlan } from '../settlements/settlement-restarts';
import { settlementBatchRestartPlan } from '../settlement-batches/settlement-batch-restarts';
import { startEach } from '../workflow-starts/workflow-restarts';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import type { TenantWorkflowsPart } from './move-parts';
import { createTenantJobsRepo } from './tenant-jobs.repo';

const TEMPORAL_DEADLINE_MS = 10_000;

/**
 * A cell's workflows of one tenant, for a move: its running workflows on the cell's task queue stopped, and its
 * unfinished jobs started there again from the cell's database.
 */
export function createCellTenantWorkflows(deps: {
  db: Db;
  client: Client;
  taskQueue: string;
  jobs: Jobs;
  starter: WorkflowStarter;
  balanceSweepSchedules: BalanceSweepSchedules;
  raiseFinding: RaiseSettlementFinding;
  logger: Logger;
}): TenantWorkflowsPart {
  const { db, client, taskQueue, jobs, starter, balanceSweepSchedules, logger } = deps;
  const tenantJobs = createTenantJobsRepo(db);
  const withDeadline = <T>(call: () => Promise<T>): Promise<T> => client.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, call);
  const plans = {
    settlements: settlementRestartPlan({ db, client, jobs, starter, logger, raiseFinding: deps.raiseFinding }),
    batches: settlementBatchRestartPlan({ db, jobs, starter, logger }),
    scheduledPayouts: scheduledPayoutRestartPlan({ db, jobs, starter, logger }),
  };

  /** Ids of the tenant's workflows the database says may run: found even before Temporal's visibility lists them. */
  async function jobWorkflowIds(tenantId: string): Promise<string[]> {
    return [
      ...(await tenantJobs.openSettlementRefs(tenantId)).map(settlementWorkflowId),
      ...(await tenantJobs.openBatchIds(tenantId)).map(settlementBatchWorkflowId),
      ...(await tenantJobs.scheduledPayoutRefs(tenantId)).map(scheduledPayoutWorkflowId),
      ...(await tenantJobs.openDeliveries(tenantId)).map((delivery) => webhookDeliveryWorkflowId(delivery.deliveryId)),
    ];
  }

  /** Every running workflow carrying the tenant's id on this task queue (a balance sweep's runs, a reconciliation). */
  async function listedWorkflowIds(tenantId: string): Promise<string[]> {
    const ids: string[] = [];
    const query = `TenantId = '${tenantId}' AND TaskQueue = '${taskQueue.replace(/'/g, "\\'")}' AND ExecutionStatus = 'Running'`;
    for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
    return ids;
  }

  /** Terminates the id's run when it runs on this cell's task queue; whether it did. */
  async function terminateHere(workflowId: string): Promise<boolean> {
    const handle = client.workflow.getHandle(workflowId);
    try {
      const described = await withDeadline(() => handle.describe());
      if (described.status.name !== 'RUNNING' || described.taskQueue !== taskQueue) return false;
      await withDeadline(() => handle.terminate('the tenant moves to another cluster'));
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }

  return {
    async stopRunning(tenantId) {
      const sweptAccounts = await tenantJobs.sweptAccountIds(tenantId);
      // The Schedules first, so none starts a sweep here while the runs are being stopped.
      for (const accountId of sweptAccounts) await balanceSweepSchedules.unschedule(accountId);
      const candidates = new Set([...(await jobWorkflowIds(tenantId)), ...(await listedWorkflowIds(tenantId))]);
      const stopped: string[] = [];
      for (const workflowId of candidates) if (await terminateHere(workflowId)) stopped.push(workflowId);
      logger.info({ tenantId, stopped: stopped.length, unscheduled: sweptAccounts.length }, "tenant's workflows stopped on this cell");
      return stopped;
    },

    async restartUnfinished(tenantId) {
      const results = [
        await plans.settlements.resume(await tenantJobs.openSettlementRefs(tenantId)),
        await plans.batches.resume(await tenantJobs.openBatchIds(tenantId)),
        await plans.scheduledPayouts.resume(await tenantJobs.scheduledPayoutRefs(tenantId)),
        await startEach(
          starter,
          logger,
          (await tenantJobs.openDeliveries(tenantId)).map((delivery) => jobs.webhookDelivery({ ...delivery, tenantId })),
        ),
      ];
      const sweptAccounts = await tenantJobs.sweptAccountIds(tenantId);
      for (const accountId of sweptAccounts) await balanceSweepSchedules.pushNow(accountId);
      const failed = results.reduce((sum, result) => sum + result.failed, 0);
      if (failed > 0) throw new Error(`${failed} of the tenant's workflows could not be started on this cell; run the move again`);
      const restarted = results.reduce((sum, result) => sum + result.restarted, 0);
      logger.info({ tenantId, restarted, schedules: sweptAccounts.map(balanceSweepScheduleId) }, "tenant's workflows started on this cell");
      return restarted + sweptAccounts.length;
    },
  };
}
