import type { Db } from '../db';
import type { Logger } from '../logger';
import { createSettlementsRepo } from '../settlements/settlements.repo';
import { merchantTxRefOfSettlement } from '../temporal/workflow-ids';
import type { Jobs } from './jobs';
import { startEach, type RestartPlan } from './workflow-restarts';
import type { WorkflowStarter } from './workflow-starter';

/**
 * Settlements whose run stopped (an operator terminated it, a deploy broke it and it was terminated)
 * while they are still pending or processing, their debit provisional. The new run reads the
 * settlement's attempts and follows the latest reference (see SettlementResumePoint); the activities
 * refuse any new reference while an earlier one can still pay. SettlementStatus starts at the
 * database's status.
 */
export function settlementRestartPlan(deps: { db: Db; jobs: Jobs; starter: WorkflowStarter; logger: Logger }): RestartPlan {
  const { db, jobs, starter, logger } = deps;
  const settlements = createSettlementsRepo(db);
  return {
    workflowType: 'settlementWorkflow',
    watermark: 'settlement-restarts',
    keyOf: merchantTxRefOfSettlement,
    async resume(merchantTxRefs) {
      const open = (await settlements.listOpenByRefs(merchantTxRefs)).map((settlement) =>
        jobs.settlement({
          settlementId: settlement.id,
          merchantTxRef: settlement.merchantTxRef,
          tenantId: settlement.tenantId,
          accountRef: settlement.accountRef,
          status: settlement.status,
        }),
      );
      return startEach(starter, logger, open);
    },
  };
}
