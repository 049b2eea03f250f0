import { formatKobo } from '../money';
import type { LedgerEntryView } from './statement.schemas';
import type { LedgerEntry } from '../ledger/ledger.types';

export function presentEntry(entry: LedgerEntry): LedgerEntryView {
  return {
    ID: entry.id,
    Direction: entry.direction,
    Amount: formatKobo(entry.amount),
    Fee: formatKobo(entry.fee),
    Currency: entry.currency,
    Status: entry.status,
    Narration: entry.narration,
    ProviderTxnRef: entry.providerTxnRef ?? '',
    TransactionGroupId: entry.transactionGroupId,
    Kind: entry.kind,
    ReversesEntryID: entry.reversesEntryId,
    CreatedAt: entry.createdAt.toISOString(),
  };
}
