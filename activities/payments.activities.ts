import type { BatchConfirmationService } from '../src/payment-confirmation/batch-confirmation.service';
import type { BatchRoundResult } from '../src/contracts/payment-confirmation.contract';

/**
 * The batch round does its own lookups and moves the money itself: its input is only the batch id and
 * entry ids, and it touches only credits whose claim row names that batch (anyone who can start a
 * workflow on the task queue can call it with any input).
 */
export function createPaymentActivities(deps: { batches: BatchConfirmationService }) {
  const { batches } = deps;
  return {
    confirmPaymentBatch(batchId: string, entryIds: string[]): Promise<BatchRoundResult> {
      return batches.round(batchId, entryIds);
    },
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
