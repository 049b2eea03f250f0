import type { Db } from '../db';
import { uuidv7 } from '../ids';
import type { Logger } from '../logger';
import { createConfirmationClaimsRepo, type ClaimedBatch } from './confirmation-claims.repo';
import type { Jobs } from '../contracts/jobs';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';

export interface BatcherPass {
  batches: number;
  payments: number;
  /** Batches whose start failed: their claims went back to the queue. */
  failed: number;
  /** Batches this process started that were still busy (in their first round) when the pass began. */
  busy: number;
  /** The pass left no room for another batch: credits probably still wait. */
  roomFull: boolean;
}

/** Batch starts in flight at once. */
const START_CONCURRENCY = 8;

/**
 * Turns the queue of provisional credits into batch confirmations: claims what is queued (oldest first,
 * one tenant per batch, cut to the size and search-attribute limits), then starts one
 * `paymentConfirmationBatchWorkflow` per batch. The claim commits before the start, and a started batch
 * marks its claims started; a start that fails puts the batch's credits back in the queue at once, and
 * if this process dies in between, the next pass of any worker claims them again once `unstartedAfterMs`
 * has passed (the convergence check's grace), without waiting for the convergence check. Runs in every worker process: claims skip rows another
 * process holds.
 *
 * At most `maxBusyBatches` batches this process started are busy at once: a backlog waits in the claim
 * queue, where every tenant takes its turn (a tenant with none of these batches busy before one with some, so a
 * small tenant's credits never wait behind a burst for a free room), instead of as rounds in front of every delivery and
 * settlement in the worker and lookups at the provider. A batch is busy while it holds a credit the
 * provider has not answered for yet (its first round, where most payments are decided); after that its
 * remaining payments wait on back-off timers, which cost nothing, so batches of payments the provider
 * does not know yet (each waiting out its window) never fill the room. Counted here, per process, from
 * the batches it started: a batch another process abandoned never takes room.
 */
export function createConfirmationBatcher(deps: {
  db: Db;
  starter: WorkflowStarter;
  jobs: Jobs;
  maxBatchSize: number;
  maxBusyBatches: number;
  unstartedAfterMs: number;
  logger: Logger;
}) {
  const { db, starter, jobs, maxBatchSize, maxBusyBatches, unstartedAfterMs, logger } = deps;
  const claims = createConfirmationClaimsRepo(db);
  /** Batches this process started that were busy at the last look, and the tenant of each. */
  let busyBatches = new Map<string, string>();

  async function startBatch(batch: ClaimedBatch): Promise<boolean> {
    try {
      await starter.start(jobs.paymentConfirmationBatch(batch));
    } catch (error) {
      logger.warn(
        { err: error, batchId: batch.batchId, payments: batch.payments.length },
        'could not start a batch confirmation; its credits go back to the queue',
      );
      await claims
        .releaseBatch(batch.batchId)
        .catch((releaseError: unknown) =>
          logger.warn({ err: releaseError, batchId: batch.batchId }, 'could not release a batch; the convergence check will'),
        );
      return false;
    }
    // Unmarked, the claims are taken again after unstartedAfterMs and this batch lets them go: harmless.
    await claims
      .markStarted(batch.batchId)
      .catch((error: unknown) => logger.warn({ err: error, batchId: batch.batchId }, 'could not mark a batch started'));
    return true;
  }

  return {
    /** One pass: claims what is queued now, as far as there is room, and starts its batches. */
    async pass(): Promise<BatcherPass> {
      const stillBusy = await claims.awaitingFirstAnswers([...busyBatches.keys()]);
      busyBatches = new Map(stillBusy.map((batchId) => [batchId, busyBatches.get(batchId)!]));
      const busy = busyBatches.size;
      const room = maxBusyBatches - busy;
      const busyTenants = [...new Set(busyBatches.values())];
      const batches =
        room > 0
          ? await claims.claimQueued({ maxBatches: room, maxSize: maxBatchSize, unstartedAfterMs, newBatchId: uuidv7, busyTenants })
          : [];
      let failed = 0;
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(START_CONCURRENCY, batches.length) }, async () => {
          while (next < batches.length) {
            const batch = batches[next++]!;
            if (await startBatch(batch)) busyBatches.set(batch.batchId, batch.tenantId);
            else failed += 1;
          }
        }),
      );
      // Every start failing is Temporal's problem, not a batch's: the loop pauses instead of claiming again at once.
      if (failed > 0 && failed === batches.length) throw new Error(`could not start any of ${failed} batch confirmations`);
      const payments = batches.reduce((sum, batch) => sum + batch.payments.length, 0);
      return { batches: batches.length, payments, failed, busy, roomFull: batches.length >= room };
    },
  };
}

export type ConfirmationBatcher = ReturnType<typeof createConfirmationBatcher>;
