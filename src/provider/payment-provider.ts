import type {
  AccountLookupInput,
  CreateVirtualAccountInput,
  ListTransactionsInput,
  ProviderAccountName,
  ProviderBank,
  ProviderRowPage,
  ProviderTransaction,
  ProviderTransfer,
  ProviderVirtualAccount,
  ProviderWalletBalance,
  SubmitTransferInput,
} from './provider.types';

/**
 * The only way the service reaches the payment provider. Every method throws ProviderUnavailableError
 * (retry may help) or ProviderRejectedError (a definite answer); "not found" is a null result, not an error.
 */
export interface PaymentProvider {
  createVirtualAccount(input: CreateVirtualAccountInput): Promise<ProviderVirtualAccount>;
  getTransaction(transactionRef: string): Promise<ProviderTransaction | null>;
  submitTransfer(input: SubmitTransferInput): Promise<ProviderTransfer>;
  listBanks(): Promise<ProviderBank[]>;
  lookupAccount(input: AccountLookupInput): Promise<ProviderAccountName | null>;
  /** One page of a listing as rows a reconciliation run matches; pass the returned cursor for the next. */
  listTransactions(input: ListTransactionsInput): Promise<ProviderRowPage>;
  getWalletBalance(): Promise<ProviderWalletBalance>;
}
