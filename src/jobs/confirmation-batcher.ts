import type { Db } from '../db';
import { uuidv7 } from '../ids';
import type { Logger } from '../logger';
import { createConfirmationClaimsRepo, type ClaimedBatch } from '../payments/confirmation-claims.repo';
import type { Jobs } from './jobs';
import type { WorkflowStarter } from './workflow-starter';

export interface BatcherPass {
  batches: number;
  payments: number;
  /** Batches whose start failed: their claims went back to the queue. */
  failed: number;
  /** The pass claimed as many as it may: more are probably queued. */
  full: boolean;
}

/** Queued credits claimed per pass. */
const CLAIM_LIMIT = 2_000;
/** Batch starts in flight at once. */
const START_CONCURRENCY = 8;

/**
 * Turns the queue of provisional credits into batch confirmations: claims what is queued (oldest first,
 * one tenant per batch, cut to the size and search-attribute limits), then starts one
 * `paymentConfirmationBatchWorkflow` per batch. The claim commits before the start, and a started batch
 * marks its claims started; a start that fails puts the batch's credits back in the queue at once, and
 * if this process dies in between, the next pass of any worker claims them again once `unstartedAfterMs`
 * has passed (the sweep's grace), without waiting for the sweep. Runs in every worker process: claims skip rows another
 * process holds.
 */
export function createConfirmationBatcher(deps: { db: Db; starter: WorkflowStarter; jobs: Jobs; maxBatchSize: number; unstartedAfterMs: number; logger: Logger }) {
  const { db, starter, jobs, maxBatchSize, unstartedAfterMs, logger } = deps;
  const claims = createConfirmationClaimsRepo(db);

  async function startBatch(batch: ClaimedBatch): Promise<boolean> {
    try {
      await starter.start(jobs.paymentConfirmationBatch(batch));
    } catch (error) {
      logger.warn({ err: error, batchId: batch.batchId, payments: batch.payments.length }, 'could not start a batch confirmation; its credits go back to the queue');
      await claims.releaseBatch(batch.batchId).catch((releaseError: unknown) => logger.warn({ err: releaseError, batchId: batch.batchId }, 'could not release a batch; the sweep will'));
      return false;
    }
    // Unmarked, the claims are taken again after unstartedAfterMs and this batch lets them go: harmless.
    await claims.markStarted(batch.batchId).catch((error: unknown) => logger.warn({ err: error, batchId: batch.batchId }, 'could not mark a batch started'));
    return true;
  }

  return {
    /** One pass: claims what is queued now and starts its batches. */
    async pass(): Promise<BatcherPass> {
      const batches = await claims.claimQueued({ limit: CLAIM_LIMIT, maxSize: maxBatchSize, unstartedAfterMs, newBatchId: uuidv7 });
      let failed = 0;
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(START_CONCURRENCY, batches.length) }, async () => {
          while (next < batches.length) if (!(await startBatch(batches[next++]!))) failed += 1;
        }),
      );
      // Every start failing is Temporal's problem, not a batch's: the loop pauses instead of claiming again at once.
      if (failed > 0 && failed === batches.length) throw new Error(`could not start any of ${failed} batch confirmations`);
      const payments = batches.reduce((sum, batch) => sum + batch.payments.length, 0);
      return { batches: batches.length, payments, failed, full: payments >= CLAIM_LIMIT };
    },
  };
}

export type ConfirmationBatcher = ReturnType<typeof createConfirmationBatcher>;
