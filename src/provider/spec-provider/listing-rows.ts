import type { ProviderRow, ProviderVerdict } from '../provider.types';
import { rowTimestamp } from '../row-timestamp';
import type { ProviderListedTransaction } from './spec-provider.types';

const SUCCESS = new Set(['SUCCESS', 'PAYMENT_SUCCESSFUL', 'SUCCESSFUL']);
const FAILED = new Set(['PAYMENT_FAILED', 'FAILED']);
const REFUNDED = new Set(['REFUND', 'REFUNDED', 'REVERSED']);

/** Anything the provider has not finished (PROCESSING, NEW, PENDING_PAYMENT, PENDING_BILLING...) is pending. */
export function verdictOf(status: string): ProviderVerdict {
  const upper = status.toUpperCase();
  if (SUCCESS.has(upper)) return 'success';
  if (FAILED.has(upper)) return 'failed';
  if (REFUNDED.has(upper)) return 'refund';
  return 'pending';
}

function directionOf(entryType: 'CREDIT' | 'DEBIT' | null, type: string, merchantTxRef: string | null): 'credit' | 'debit' {
  if (entryType) return entryType === 'CREDIT' ? 'credit' : 'debit';
  if (type === 'vact_transfer') return 'credit';
  if (type === 'transfer') return 'debit';
  return merchantTxRef ? 'debit' : 'credit';
}

/**
 * A row of a listing. `accountNumber`: the listing was that one virtual account's, so the row is that
 * account's credit whatever the row itself omits.
 */
export function fromListing(transaction: ProviderListedTransaction, accountNumber?: string): ProviderRow {
  return {
    providerTxnId: transaction.id,
    direction: accountNumber ? 'credit' : directionOf(transaction.entryType, transaction.type, transaction.merchantTxRef),
    status: verdictOf(transaction.status),
    rawStatus: transaction.status,
    amount: transaction.amountKobo.toString(),
    fee: (transaction.feeKobo ?? 0n).toString(),
    currency: transaction.currency,
    timeCreated: rowTimestamp(transaction.timeCreated),
    recipientAccountNumber: accountNumber ?? transaction.recipientAccountNumber,
    aliasAccountRef: null,
    merchantTxRef: transaction.merchantTxRef,
    senderName: transaction.senderName,
    narration: transaction.narration,
  };
}
