import type { PaymentConfirmationService } from '../src/payments/payment-confirmation.service';
import type { ConfirmationOutcome, ProviderTxnLookup } from '../src/temporal/payloads';

export function createPaymentActivities(deps: { confirmations: PaymentConfirmationService }) {
  const { confirmations } = deps;
  return {
    lookupProviderTransaction(transactionRef: string): Promise<ProviderTxnLookup> {
      return confirmations.lookup(transactionRef);
    },
    confirmPaymentCredit(entryId: string): Promise<ConfirmationOutcome> {
      return confirmations.confirm(entryId);
    },
    reversePaymentCredit(entryId: string, reason: string): Promise<ConfirmationOutcome> {
      return confirmations.reverse(entryId, reason);
    },
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
