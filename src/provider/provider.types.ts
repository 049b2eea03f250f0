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
}
