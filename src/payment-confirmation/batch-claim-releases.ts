import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Db } from '../db';
import type { Logger } from '../logger';
import { createConfirmationClaimsRepo } from './confirmation-claims.repo';
import { paymentConfirmationBatchWorkflowId } from '../contracts/payment-confirmation.contract';
import type { ClaimReleaseResult } from '../contracts/convergence-check.contract';

const BATCHES_PER_SCAN = 1_000;

/**
 * A batch that failed, was terminated or timed out (or whose start never happened) leaves its claims
 * behind; the convergence check puts those credits back in the queue, and the batcher confirms them in a new batch.
 * Whether a batch still runs is asked of Temporal directly (describe), not of visibility, so a release
 * never waits on visibility's lag. A batch that continued as new is running under the same id.
 */
export function createBatchClaimReleaser(deps: { db: Db; client: Client; logger: Logger }) {
  const { db, client, logger } = deps;
  const claims = createConfirmationClaimsRepo(db);

  async function running(batchId: string): Promise<boolean> {
    try {
      return (await client.workflow.getHandle(paymentConfirmationBatchWorkflowId(batchId)).describe()).status.name === 'RUNNING';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }

  return {
    /**
     * `olderThanMs`: only claims older than this are checked (the convergence check's grace: a batch just claimed may
     * still be starting). Releasing a batch that then starts after all is harmless: its claims no longer
     * name it, so it lets its credits go, and the new batch that claims them confirms them.
     */
    async releaseStopped(olderThanMs: number, onProgress: () => void = () => undefined): Promise<ClaimReleaseResult> {
      const result: ClaimReleaseResult = { checked: 0, released: 0, payments: 0 };
      for (const batchId of await claims.batchesClaimedBefore(olderThanMs, BATCHES_PER_SCAN)) {
        result.checked += 1;
        if (!(await running(batchId))) {
          result.released += 1;
          result.payments += await claims.releaseBatch(batchId);
        }
        onProgress();
      }
      if (result.released > 0) logger.info(result, 'convergence check released the credits of batches that stopped');
      return result;
    },
  };
}

export type BatchClaimReleaser = ReturnType<typeof createBatchClaimReleaser>;
