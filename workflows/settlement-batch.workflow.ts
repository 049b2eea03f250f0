import { condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { SettlementBatchActivities } from '../activities/settlement-batches.activities';
import { continueAsNewWith, historyIsLong } from './continue-as-new';
import { MAX_RETRY_AFTER_MS } from './pacing';
import {
  settlementBatchCancelledSignal,
  settlementBatchStatusQuery,
  type SettlementBatchEnd,
  type SettlementBatchInput,
  type SettlementBatchProgress,
  type SettlementBatchState,
} from '../src/contracts/settlement-batch.contract';

// A chunk of a hundred items makes a hundred settlements (each a few statements) and heartbeats after each,
// so a worker that dies mid-chunk is noticed within the heartbeat timeout; its retry starts at the first item still queued.
const { initiateBatchItems, completeBatchIfFinal } = proxyActivities<SettlementBatchActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One run per settlement batch. A scheduled batch first waits for its time (a durable timer the first chunk names;
 * a cancel ends the wait). Initiate: the items, in request order, a chunk per activity call, each an
 * ordinary settlement with its own settlement workflow; a chunk that stops early (the tenant's cap of
 * settlements in flight is full, a rate limit, an outage) is followed by a wait of the time it names.
 * Follow: checks every poll interval until every item is final, then the activity ends the batch and records
 * settlement_batch.completed. A cancel (signalled by the API, and read from the database anyway) ends the
 * initiate phase at once. Long batches continue as new with their phase and counts.
 */
export async function settlementBatchWorkflow(input: SettlementBatchInput): Promise<SettlementBatchEnd> {
  const progress: SettlementBatchProgress = input.progress ?? { phase: 'initiate', runs: 1, judged: 0 };
  let open: number | null = null;
  let cancelled = false;
  setHandler(settlementBatchCancelledSignal, () => {
    cancelled = true;
  });
  setHandler(settlementBatchStatusQuery, (): SettlementBatchState => ({ ...progress, open }));

  const continueIfLong = async (): Promise<void> => {
    if (historyIsLong())
      await continueAsNewWith<typeof settlementBatchWorkflow>({ ...input, progress: { ...progress, runs: progress.runs + 1 } });
  };

  while (progress.phase === 'initiate') {
    await continueIfLong();
    const chunk = await initiateBatchItems({ batchId: input.batchId, limit: input.chunkSize });
    progress.judged += chunk.judged;
    if (chunk.stopped) progress.phase = 'follow';
    else if (chunk.untilScheduled) await condition(() => cancelled, chunk.waitMs);
    else if (chunk.waitMs > 0) await condition(() => cancelled, Math.min(chunk.waitMs, MAX_RETRY_AFTER_MS));
  }
  for (;;) {
    await continueIfLong();
    const check = await completeBatchIfFinal(input.batchId);
    if (check.kind === 'ended') return check.status;
    open = check.open;
    await sleep(input.pollIntervalMs);
  }
}
