import type { Client } from '@temporalio/client';
import type { Db } from '../db';
import { uuidv7 } from '../ids';
import type { Logger } from '../logger';
import type { RaiseSettlementFinding } from './settlement-findings';
import { createSettlementsRepo, type SettlementRecord } from './settlements.repo';
import type { Jobs } from '../contracts/jobs';
import { startEach, type FailedRun, type RestartPlan } from '../workflow-starts/workflow-restarts';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { merchantTxRefOfSettlement, settlementWorkflowId } from '../contracts/settlement.contract';

/** The innermost message of a failed run (the activity's ApplicationFailure under the ActivityFailure), and its type. */
async function failureOf(client: Client, run: FailedRun): Promise<{ message: string; type: string | null }> {
  try {
    await client.workflow.getHandle(run.workflowId, run.runId, { followRuns: false }).result();
    return { message: 'the run did not fail', type: null };
  } catch (error) {
    let inner: unknown = error;
    while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
    const type = inner && typeof inner === 'object' && 'type' in inner && typeof inner.type === 'string' ? inner.type : null;
    return { message: inner instanceof Error ? inner.message : String(inner), type };
  }
}

/**
 * Settlements whose run stopped (an operator terminated it, a deploy broke it and it was terminated)
 * while they are still pending or processing, their debit provisional. The new run reads the
 * settlement's attempts and follows the latest reference (see SettlementResumePoint); the activities
 * refuse any new reference while an earlier one can still pay. SettlementStatus starts at the
 * database's status.
 *
 * A run that failed did so because an activity failed for good (a settlement rule refused a step, the
 * provider paid another amount): a new run would fail the same way at once. It is parked: one alert
 * finding (`settlement_run_failed`, one per failed run) and no restart, until an operator retries it
 * (`settlement:retry`). A settlement whose latest run failed is never resumed on an older run's account.
 */
export function settlementRestartPlan(deps: {
  db: Db;
  client: Client;
  jobs: Jobs;
  starter: WorkflowStarter;
  logger: Logger;
  raiseFinding: RaiseSettlementFinding;
}): RestartPlan {
  const { db, client, jobs, starter, logger, raiseFinding } = deps;
  const settlements = createSettlementsRepo(db);

  const latestRunFailed = async (merchantTxRef: string): Promise<boolean> =>
    (await client.workflow.getHandle(settlementWorkflowId(merchantTxRef)).describe()).status.name === 'FAILED';

  const jobOf = (settlement: SettlementRecord) =>
    jobs.settlement({
      settlementId: settlement.id,
      merchantTxRef: settlement.merchantTxRef,
      tenantId: settlement.tenantId,
      accountRef: settlement.accountRef,
      status: settlement.status,
    });

  return {
    workflowType: 'settlementWorkflow',
    watermark: 'settlement-restarts',
    keyOf: merchantTxRefOfSettlement,
    async resume(merchantTxRefs) {
      const open = await settlements.listOpenByRefs(merchantTxRefs);
      const resumable: SettlementRecord[] = [];
      for (const settlement of open) if (!(await latestRunFailed(settlement.merchantTxRef))) resumable.push(settlement);
      return startEach(starter, logger, resumable.map(jobOf));
    },

    async park(runs) {
      const open = new Map(
        (await settlements.listOpenByRefs(runs.map((run) => run.key))).map((settlement) => [settlement.merchantTxRef, settlement]),
      );
      let parked = 0;
      for (const run of runs) {
        const settlement = open.get(run.key);
        if (!settlement) continue;
        const failure = await failureOf(client, run);
        const raised = await raiseFinding({
          id: uuidv7(),
          tenantId: settlement.tenantId,
          kind: 'settlement_run_failed',
          subject: `${run.workflowId}/${run.runId}`,
          accountId: settlement.accountId,
          settlementId: settlement.id,
          details: {
            workflowId: run.workflowId,
            runId: run.runId,
            failure: failure.message,
            ...(failure.type ? { failureType: failure.type } : {}),
            settlementStatus: settlement.status,
            retry: `npm run cli -- settlement:retry --ref ${settlement.merchantTxRef}`,
          },
        });
        if (raised)
          logger.error(
            { merchantTxRef: settlement.merchantTxRef, runId: run.runId, failure: failure.message },
            'settlement run failed for good: parked, not restarted',
          );
        parked += 1;
      }
      return parked;
    },
  };
}

/**
 * The operator's retry of a settlement whose run failed for good (the CLI's `settlement:retry`): a new
 * run, which picks up where the database says the settlement is. Refused for a settlement no longer
 * pending or processing, or whose run is still going.
 */
export async function retrySettlementRun(
  deps: { db: Db; jobs: Jobs; starter: WorkflowStarter },
  merchantTxRef: string,
): Promise<'started' | 'running' | 'closed' | 'not_found'> {
  const settlement = await createSettlementsRepo(deps.db).findByRefAnyTenant(merchantTxRef);
  if (!settlement) return 'not_found';
  if (settlement.status !== 'pending' && settlement.status !== 'processing') return 'closed';
  const started = await deps.starter.start(
    deps.jobs.settlement({
      settlementId: settlement.id,
      merchantTxRef,
      tenantId: settlement.tenantId,
      accountRef: settlement.accountRef,
      status: settlement.status,
    }),
  );
  return started === 'started' ? 'started' : 'running';
}
