import { Context } from '@temporalio/activity';
import type { ChunkResult, CompletionCheck } from '../src/contracts/settlement-batch.contract';
import type { SettlementBatchExecutionService } from '../src/settlement-batches/settlement-batch-execution.service';

export function createSettlementBatchActivities(deps: { batchExecution: SettlementBatchExecutionService }) {
  const { batchExecution } = deps;
  return {
    /** Judges and initiates the next items in order, heartbeating after each; a retry picks up at the first item still queued. */
    initiateBatchItems(request: { batchId: string; limit: number }): Promise<ChunkResult> {
      const context = Context.current();
      return batchExecution.initiateChunk(request.batchId, request.limit, () => context.heartbeat());
    },

    /** Ends the batch (and records settlement_batch.completed) once every item is final. */
    completeBatchIfFinal(batchId: string): Promise<CompletionCheck> {
      return batchExecution.completeIfFinal(batchId);
    },
  };
}

export type SettlementBatchActivities = ReturnType<typeof createSettlementBatchActivities>;
