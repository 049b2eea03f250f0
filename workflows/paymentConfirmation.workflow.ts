import { defineQuery, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities/payments.activities';
import type { ConfirmationOutcome, PaymentConfirmationInput, ProviderTxnLookup } from '../src/temporal/payloads';

// Local activities: each is a short call (a lookup, one transaction) that the worker runs itself, so a
// confirmation costs the server one workflow task instead of an activity task per call.
const { lookupProviderTransaction, confirmPaymentCredit, reversePaymentCredit } = proxyLocalActivities<PaymentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** Lookups back off to this interval at most. */
const MAX_POLL_MS = 5 * 60_000;

export interface ConfirmationState {
  lookups: number;
  lastLookup: ProviderTxnLookup | null;
  outcome: ConfirmationOutcome | null;
}

export const confirmationStatusQuery = defineQuery<ConfirmationState>('status');

/**
 * Confirms a provisional credit once the provider shows the transaction as SUCCESS for the same gross
 * amount; reverses it on a failure, refund or mismatch, or when the provider still does not know it at
 * the end of the window. While the provider is unreachable nothing is decided: a payment is never
 * reversed for lack of an answer.
 */
export async function paymentConfirmationWorkflow(input: PaymentConfirmationInput): Promise<ConfirmationOutcome> {
  const state: ConfirmationState = { lookups: 0, lastLookup: null, outcome: null };
  setHandler(confirmationStatusQuery, () => state);
  const deadline = Date.now() + input.windowMs;
  let delay = input.pollIntervalMs;

  const settle = async (decision: Promise<ConfirmationOutcome>): Promise<ConfirmationOutcome> => {
    state.outcome = await decision;
    return state.outcome;
  };

  for (;;) {
    const lookup = await lookupProviderTransaction(input.providerTxnRef);
    state.lookups += 1;
    state.lastLookup = lookup;
    if (lookup.kind === 'found' && lookup.status === 'SUCCESS') {
      return lookup.grossAmountKobo === input.grossAmountKobo
        ? settle(confirmPaymentCredit(input.entryId))
        : settle(reversePaymentCredit(input.entryId, `provider amount ${lookup.grossAmountKobo} kobo differs from ${input.grossAmountKobo} kobo`));
    }
    if (lookup.kind === 'found' && (lookup.status === 'PAYMENT_FAILED' || lookup.status === 'REFUND')) {
      return settle(reversePaymentCredit(input.entryId, `provider reports ${lookup.status}`));
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0 && lookup.kind !== 'unavailable') {
      return settle(reversePaymentCredit(input.entryId, 'not confirmed by the provider within the confirmation window'));
    }
    await sleep(remaining > 0 ? Math.min(delay, remaining) : delay);
    delay = Math.min(delay * 2, MAX_POLL_MS);
  }
}
