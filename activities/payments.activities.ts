import type { PaymentConfirmationService } from '../src/payments/payment-confirmation.service';
import type { CreditResolution, ProviderTxnLookup } from '../src/temporal/payloads';

/** Confirm and reverse re-check the credit against the database and the provider: their input is only an entry id. */
export function createPaymentActivities(deps: { confirmations: PaymentConfirmationService }) {
  const { confirmations } = deps;
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
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
