import type { BatchConfirmationService } from '../src/payments/batch-confirmation.service';
import type { PaymentConfirmationService } from '../src/payments/payment-confirmation.service';
import type { BatchRoundResult, CreditResolution } from '../src/contracts/payment-confirmation.contract';
import type { ProviderTxnLookup } from '../src/provider/provider-answers';

/**
 * Confirm and reverse re-check the credit against the database and the provider: their input is only an
 * entry id, and reverse decides "not found" by the provider's answers the database holds (every lookup of
 * these three activities is remembered there). The batch round does its own lookups and moves the money
 * itself: its input is only the batch id and entry ids, and it touches only credits whose claim row names
 * that batch.
 */
export function createPaymentActivities(deps: { confirmations: PaymentConfirmationService; batches: BatchConfirmationService }) {
  const { confirmations, batches } = deps;
  return {
    lookupProviderTransaction(transactionRef: string): Promise<ProviderTxnLookup> {
      return confirmations.lookup(transactionRef);
    },
    confirmPaymentCredit(entryId: string): Promise<CreditResolution> {
      return confirmations.confirm(entryId);
    },
    reversePaymentCredit(entryId: string, reason: string): Promise<CreditResolution> {
      return confirmations.reverse(entryId, reason);
    },
    confirmPaymentBatch(batchId: string, entryIds: string[]): Promise<BatchRoundResult> {
      return batches.round(batchId, entryIds);
    },
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
