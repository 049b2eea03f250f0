/**
 * What the provider says about a transaction, in the service's own terms (the provider's client maps its
 * wire answers to these). Workflows decide on `status`; the money-moving activities compare the rest with
 * the database. Optional fields are absent when the provider did not return them (and in lookups recorded
 * before they existed). Pure types: workflow code imports them through the contracts.
 */
export type ProviderTxnLookup =
  | {
      kind: 'found';
      status: 'SUCCESS' | 'PAYMENT_FAILED' | 'PROCESSING' | 'REFUND';
      grossAmountKobo: string;
      feeKobo: string | null;
      transactionId: string;
      /** The virtual account reference the payer paid into (`aliasAccountReference`). */
      accountRef?: string | null;
      type?: string | null;
      merchantTxRef?: string | null;
      currency?: string | null;
    }
  | { kind: 'not_found' }
  | ProviderUnavailable;

/** The provider gave no answer (outage, 429, timeout, unreadable body); retryAfterMs is its Retry-After. */
export interface ProviderUnavailable {
  kind: 'unavailable';
  reason: string;
  retryAfterMs?: number;
}
