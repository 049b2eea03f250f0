import type { PaymentProvider } from '../payment-provider';
import type { ListTransactionsInput } from '../provider.types';

/**
 * The provider's HTTP API as its client reads it (the sandbox serves the same shape): the port's calls,
 * with listings in the provider's own field names.
 */
export interface ProviderClient extends Omit<PaymentProvider, 'listTransactions'> {
  /** One page of a listing; pass the returned cursor for the next. */
  listTransactions(input: ListTransactionsInput): Promise<ProviderTransactionPage>;
}

/** One transaction as the provider's listing shows it. */
export interface ProviderListedTransaction {
  id: string;
  /** As the provider wrote it: SUCCESS, PAYMENT_FAILED, REFUND, PROCESSING, and the provider's other in-progress states. */
  status: string;
  /** Gross: what the payer sent, or what a payout paid. */
  amountKobo: bigint;
  feeKobo: bigint | null;
  type: string;
  /** CREDIT or DEBIT to the wallet, when the listing says. */
  entryType: 'CREDIT' | 'DEBIT' | null;
  /** null when the listing leaves it out (which means NGN). */
  currency: string | null;
  merchantTxRef: string | null;
  recipientAccountNumber: string | null;
  senderName: string | null;
  narration: string | null;
  timeCreated: string;
}

export interface ProviderTransactionPage {
  transactions: ProviderListedTransaction[];
  /** null on the last page. */
  nextCursor: string | null;
}
