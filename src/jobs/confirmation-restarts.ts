import type { Client } from '@temporalio/client';
import type { Db } from '../db';
import { isUuid } from '../ids';
import type { Logger } from '../logger';
import { createPaymentCreditsRepo } from '../payments/payment-credits.repo';
import { entryIdOfConfirmation } from '../temporal/workflow-ids';
import type { Jobs } from './jobs';
import { createSweepWatermarksRepo } from './sweep-watermarks.repo';
import type { WorkflowStarter } from './workflow-starter';

export interface RestartResult {
  /** Confirmation runs that ended failed, terminated, timed out or cancelled since the last scan. */
  closedAbnormally: number;
  /** Of those, credits still provisional whose confirmation was started again. */
  restarted: number;
  failed: number;
}

const WATERMARK = 'confirmation-restarts';
/** Visibility is eventually consistent: each scan looks this far back before the last one's start. */
const VISIBILITY_LAG_MS = 5 * 60_000;
const BATCH = 500;

/**
 * Finds provisional credits whose confirmation is no longer running, without scanning the ledger:
 * Temporal's visibility lists the confirmation runs of this task queue that closed as failed,
 * terminated, timed out or cancelled since the previous scan (a watermark in Postgres); the
 * database says which of those credits are still provisional; each gets a fresh confirmation, built
 * from the credit (its posting time keeps the original window). A run that continued as new or
 * completed is never listed, so a healthy system lists nothing. A scan that could not start
 * everything leaves the watermark where it was, so the next one tries again.
 */
export function createConfirmationRestarter(deps: { db: Db; client: Client; starter: WorkflowStarter; jobs: Jobs; taskQueue: string; windowMs: number; logger: Logger }) {
  const { db, client, starter, jobs, taskQueue, windowMs, logger } = deps;
  const credits = createPaymentCreditsRepo(db);
  const watermarks = createSweepWatermarksRepo(db);

  function query(since: Date | null): string {
    const clauses = [
      `WorkflowType = 'paymentConfirmationWorkflow'`,
      `TaskQueue = '${taskQueue.replace(/'/g, "\\'")}'`,
      `ExecutionStatus IN ('Failed', 'Terminated', 'TimedOut', 'Canceled')`,
    ];
    if (since) clauses.push(`CloseTime >= '${since.toISOString()}'`);
    return clauses.join(' AND ');
  }

  async function restartBatch(entryIds: string[]): Promise<{ restarted: number; failed: number }> {
    let restarted = 0;
    let failed = 0;
    for (const credit of await credits.listProvisional(entryIds, windowMs)) {
      const job = jobs.paymentConfirmation({
        entryId: credit.entryId,
        providerTxnRef: credit.providerTxnRef,
        gross: credit.gross,
        tenantId: credit.tenantId,
        accountRef: credit.accountRef,
        postedAt: credit.postedAt,
      });
      try {
        if ((await starter.start(job)) === 'started') restarted += 1;
      } catch (error) {
        failed += 1;
        logger.warn({ err: error, workflowId: job.workflowId }, 'could not restart a confirmation; the next sweep will');
      }
    }
    return { restarted, failed };
  }

  return {
    async restartStalled(onProgress: () => void = () => undefined): Promise<RestartResult> {
      const scanStartedAt = new Date();
      const watermark = await watermarks.get(WATERMARK);
      const since = watermark ? new Date(watermark.getTime() - VISIBILITY_LAG_MS) : null;
      const result: RestartResult = { closedAbnormally: 0, restarted: 0, failed: 0 };
      let batch = new Set<string>();
      const flush = async (): Promise<void> => {
        const done = await restartBatch([...batch]);
        result.restarted += done.restarted;
        result.failed += done.failed;
        batch = new Set();
        onProgress();
      };
      for await (const execution of client.workflow.list({ query: query(since) })) {
        const entryId = entryIdOfConfirmation(execution.workflowId);
        if (entryId === null || !isUuid(entryId)) continue;
        result.closedAbnormally += 1;
        batch.add(entryId);
        if (batch.size >= BATCH) await flush();
      }
      if (batch.size > 0) await flush();
      if (result.failed === 0) await watermarks.advance(WATERMARK, scanStartedAt);
      if (result.restarted > 0) logger.info(result, 'convergence sweep restarted confirmations that had stopped');
      return result;
    },
  };
}

export type ConfirmationRestarter = ReturnType<typeof createConfirmationRestarter>;
