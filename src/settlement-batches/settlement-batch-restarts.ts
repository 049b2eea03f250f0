import type { Jobs } from '../contracts/jobs';
import { batchIdOfSettlementBatch } from '../contracts/settlement-batch.contract';
import type { Db } from '../db';
import { isUuid } from '../ids';
import type { Logger } from '../logger';
import { startEach, type RestartPlan } from '../workflow-starts/workflow-restarts';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { createSettlementBatchesRepo } from './settlement-batches.repo';

/**
 * Batches whose run stopped (terminated, timed out, cancelled, or failed) before the batch ended: the
 * convergence check starts each again under its workflow id. The new run rebuilds everything from the database: the
 * first chunk starts at the first item still queued, items already initiated answer under their keys, and
 * the end is recorded once under the batch's lock. A failed run is resumed too: its activities retry
 * without end, so only a broken deploy fails one, and a batch must never stay open for ever.
 */
export function settlementBatchRestartPlan(deps: {
  db: Db;
  jobs: Pick<Jobs, 'settlementBatch'>;
  starter: WorkflowStarter;
  logger: Logger;
}): RestartPlan {
  const { db, jobs, starter, logger } = deps;
  const batches = createSettlementBatchesRepo(db);
  return {
    workflowType: 'settlementBatchWorkflow',
    watermark: 'settlement-batch-restarts',
    keyOf: (workflowId) => {
      const batchId = batchIdOfSettlementBatch(workflowId);
      return batchId !== null && isUuid(batchId) ? batchId : null;
    },
    async resume(batchIds) {
      const open = await batches.listOpen(batchIds);
      return startEach(
        starter,
        logger,
        open.map((batch) => jobs.settlementBatch({ batchId: batch.id, tenantId: batch.tenantId })),
      );
    },
  };
}
