/** The only way the service reaches the payment provider; the sandbox serves the same HTTP shape. */

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

/**
 * Every method throws ProviderUnavailableError (retry may help) or ProviderRejectedError (a definite
 * answer); "not found" is a null result, not an error.
 */
export interface ProviderClient {
  createVirtualAccount(input: CreateVirtualAccountInput): Promise<ProviderVirtualAccount>;
  getTransaction(transactionRef: string): Promise<ProviderTransaction | null>;
  submitTransfer(input: SubmitTransferInput): Promise<ProviderTransfer>;
  listBanks(): Promise<ProviderBank[]>;
  lookupAccount(input: AccountLookupInput): Promise<ProviderAccountName | null>;
  /** One page of a listing; pass the returned cursor for the next. */
  listTransactions(input: ListTransactionsInput): Promise<ProviderTransactionPage>;
  getWalletBalance(): Promise<ProviderWalletBalance>;
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

export interface ProviderWalletBalance {
  amountKobo: bigint;
  currency: string;
}
