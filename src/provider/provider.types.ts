/** The service's own words for what the payment provider answers, whichever provider it is. */

export type ProviderTransactionStatus = 'SUCCESS' | 'PAYMENT_FAILED' | 'PROCESSING' | 'REFUND';

export interface CreateVirtualAccountInput {
  accountRef: string;
  accountName: string;
  bvn?: string;
  expectedAmountKobo?: bigint;
}

export interface ProviderVirtualAccount {
  accountRef: string;
  accountHolderId: string;
  accountName: string;
  bankAccountNumber: string;
  bankAccountName: string;
  bankName: string;
  currency: string;
  expectedAmountKobo: bigint | null;
  expired: boolean;
  createdAt: string;
}

export interface ProviderTransaction {
  id: string;
  status: ProviderTransactionStatus;
  /** Gross: what the payer sent (for a transfer, the amount paid out). */
  amountKobo: bigint;
  feeKobo: bigint | null;
  /** `vact_transfer` for a payment into a virtual account, `transfer` for a payout; null when not given. */
  type: string | null;
  /** Null when not given: the provider's transactions are NGN unless it says otherwise. */
  currency: string | null;
  merchantTxRef: string | null;
  aliasAccountReference: string | null;
  timeCreated: string;
}

export interface SubmitTransferInput {
  amountKobo: bigint;
  accountNumber: string;
  accountName: string;
  bankCode: string;
  merchantTxRef: string;
  senderName: string;
  narration?: string;
}

export interface ProviderTransfer {
  id: string;
  status: ProviderTransactionStatus;
  amountKobo: bigint;
  feeKobo: bigint | null;
  merchantTxRef: string;
  timeCreated: string;
}

export interface ProviderBank {
  code: string;
  name: string;
}

export interface AccountLookupInput {
  accountNumber: string;
  bankCode: string;
}

export interface ProviderAccountName {
  accountNumber: string;
  accountName: string;
}

/** The provider's transaction listings: the merchant's wallet (every payment and payout), or one virtual account's credits. */
export type TransactionListingScope = { kind: 'wallet' } | { kind: 'virtual_account'; accountNumber: string };

export interface ListTransactionsInput {
  scope: TransactionListingScope;
  /** Transactions created from this moment to `to`, both inclusive, at the provider's one-second precision. */
  from: Date;
  to: Date;
  /** The cursor the previous page returned; absent for the first page. */
  cursor?: string;
  limit: number;
}

export interface ProviderWalletBalance {
  amountKobo: bigint;
  currency: string;
}

/** The provider's verdict on a transaction, reduced to what matching decides on. */
export type ProviderVerdict = 'success' | 'failed' | 'refund' | 'pending' | 'not_found';

/** One provider transaction as a reconciliation run matches it, whichever listing or lookup it came from. */
export interface ProviderRow {
  providerTxnId: string;
  direction: 'credit' | 'debit';
  status: ProviderVerdict;
  rawStatus: string | null;
  /** Kobo as text: rows travel to Postgres as JSON. */
  amount: string | null;
  fee: string | null;
  currency: string | null;
  timeCreated: string | null;
  recipientAccountNumber: string | null;
  aliasAccountRef: string | null;
  merchantTxRef: string | null;
  senderName: string | null;
  narration: string | null;
}

export interface ProviderRowPage {
  rows: ProviderRow[];
  /** null on the last page. */
  nextCursor: string | null;
}
