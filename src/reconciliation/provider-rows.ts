import type { ProviderListedTransaction, ProviderTransaction } from '../provider/provider.types';

/** The provider's verdict on a transaction, reduced to what matching decides on. */
export type ProviderVerdict = 'success' | 'failed' | 'refund' | 'pending' | 'not_found';

/** One provider transaction as a run matches it, whichever listing or lookup it came from. */
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

/** A timestamp Postgres reads the same way whatever the provider's precision; null when unreadable. */
function instant(text: string): string | null {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
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
    timeCreated: instant(transaction.timeCreated),
    recipientAccountNumber: accountNumber ?? transaction.recipientAccountNumber,
    aliasAccountRef: null,
    merchantTxRef: transaction.merchantTxRef,
    senderName: transaction.senderName,
    narration: transaction.narration,
  };
}

/**
 * A ledger record the listing did not show, as the provider's single lookup answers for it (null: the
 * provider does not know it). Keyed by the reference the ledger holds, so the run asks for it once.
 */
/** A ledger record to ask the provider about: a payment credit by its transaction id, a settlement attempt by its reference. */
export type LookupRequest = { kind: 'credit'; providerTxnRef: string } | { kind: 'transfer'; providerRef: string };

export function fromLookup(asked: LookupRequest, found: ProviderTransaction | null): ProviderRow {
  const base = {
    direction: asked.kind === 'credit' ? ('credit' as const) : ('debit' as const),
    recipientAccountNumber: null,
    senderName: null,
    narration: null,
    currency: null,
    merchantTxRef: asked.kind === 'transfer' ? asked.providerRef : null,
  };
  if (!found) {
    const providerTxnId = asked.kind === 'credit' ? asked.providerTxnRef : `not-found:${asked.providerRef}`;
    return { ...base, providerTxnId, status: 'not_found', rawStatus: null, amount: null, fee: null, timeCreated: null, aliasAccountRef: null };
  }
  return {
    ...base,
    providerTxnId: asked.kind === 'credit' ? asked.providerTxnRef : found.id,
    status: verdictOf(found.status),
    rawStatus: found.status,
    amount: found.amountKobo.toString(),
    fee: (found.feeKobo ?? 0n).toString(),
    timeCreated: instant(found.timeCreated),
    aliasAccountRef: found.aliasAccountReference,
    currency: found.currency,
  };
}
