import type { Client } from '@temporalio/client';
import type { Db } from '../db';
import { isUuid } from '../ids';
import type { Logger } from '../logger';
import { createConfirmationClaimsRepo } from '../payments/confirmation-claims.repo';
import { createPaymentCreditsRepo } from '../payments/payment-credits.repo';
import { entryIdOfConfirmation } from '../temporal/workflow-ids';
import { createSweepWatermarksRepo } from './sweep-watermarks.repo';

export interface RestartResult {
  /** Confirmation runs that ended failed, terminated, timed out or cancelled since the last scan. */
  closedAbnormally: number;
  /** Of those, credits still provisional queued again for a batch confirmation. */
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
 * database says which of those credits are still provisional; each is queued for a batch confirmation
 * (confirmation_claims), built from the credit (its posting time keeps the original window). A run that continued as new or
 * completed is never listed, so a healthy system lists nothing. A scan that could not start
 * everything leaves the watermark where it was, so the next one tries again.
 */
export function createConfirmationRestarter(deps: { db: Db; client: Client; taskQueue: string; windowMs: number; logger: Logger }) {
  const { db, client, taskQueue, windowMs, logger } = deps;
  const credits = createPaymentCreditsRepo(db);
  const claims = createConfirmationClaimsRepo(db);
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
    const provisional = await credits.listProvisional(entryIds, windowMs);
    try {
      const restarted = await claims.enqueue(
        provisional.map((credit) => ({ entryId: credit.entryId, tenantId: credit.tenantId, accountRef: credit.accountRef, providerTxnRef: credit.providerTxnRef, postedAt: credit.postedAt })),
      );
      return { restarted, failed: 0 };
    } catch (error) {
      logger.warn({ err: error, count: provisional.length }, 'could not queue stopped confirmations again; the next sweep will');
      return { restarted: 0, failed: provisional.length };
    }
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
