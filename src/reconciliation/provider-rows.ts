import type { ProviderRow, ProviderTransaction, ProviderTransactionStatus, ProviderVerdict } from '../provider/provider.types';
import { rowTimestamp } from '../provider/row-timestamp';

/** A single lookup answers in one of the four statuses the service knows. */
const LOOKUP_VERDICTS: Record<ProviderTransactionStatus, ProviderVerdict> = {
  SUCCESS: 'success',
  PAYMENT_FAILED: 'failed',
  REFUND: 'refund',
  PROCESSING: 'pending',
};

/** A ledger record to ask the provider about: a payment credit by its transaction id, a settlement attempt by its reference. */
export type LookupRequest = { kind: 'credit'; providerTxnRef: string } | { kind: 'attempt'; providerRef: string };

/**
 * A ledger record the listing did not show, as the provider's single lookup answers for it (null: the
 * provider does not know it). Keyed by the reference the ledger holds, so the run asks for it once.
 */
export function fromLookup(asked: LookupRequest, found: ProviderTransaction | null): ProviderRow {
  const base = {
    direction: asked.kind === 'credit' ? ('credit' as const) : ('debit' as const),
    recipientAccountNumber: null,
    senderName: null,
    narration: null,
    currency: null,
    merchantTxRef: asked.kind === 'attempt' ? asked.providerRef : null,
  };
  if (!found) {
    const providerTxnId = asked.kind === 'credit' ? asked.providerTxnRef : `not-found:${asked.providerRef}`;
    return {
      ...base,
      providerTxnId,
      status: 'not_found',
      rawStatus: null,
      amount: null,
      fee: null,
      timeCreated: null,
      aliasAccountRef: null,
    };
  }
  return {
    ...base,
    providerTxnId: asked.kind === 'credit' ? asked.providerTxnRef : found.id,
    status: LOOKUP_VERDICTS[found.status],
    rawStatus: found.status,
    amount: found.amountKobo.toString(),
    fee: (found.feeKobo ?? 0n).toString(),
    timeCreated: rowTimestamp(found.timeCreated),
    aliasAccountRef: found.aliasAccountReference,
    currency: found.currency,
  };
}
