import type { DbOrTrx } from '../db';
import type { EntryStatus } from '../ledger/ledger.types';
import { koboFromDb, type Kobo } from '../money';

/** A payment credit as confirmation checks it: the entry, where it was paid, and how old it is. */
export interface PaymentCreditRecord {
  entryId: string;
  tenantId: string;
  accountRef: string;
  status: EntryStatus;
  providerTxnRef: string;
  /** What the payer sent: the credited amount plus the fee. */
  gross: Kobo;
  currency: string;
  /** The reference the payer used: the account's own, or for an operator-assigned misdirected payment the one it arrived under. */
  paidIntoRef: string;
  postedAt: Date;
}

interface CreditRow {
  id: string;
  tenant_id: string;
  account_ref: string;
  status: EntryStatus;
  provider_txn_ref: string;
  amount: string;
  fee: string;
  currency: string;
  arrived_under: string | null;
  created_at: Date;
}

function toRecord(row: CreditRow): PaymentCreditRecord {
  return {
    entryId: row.id,
    tenantId: row.tenant_id,
    accountRef: row.account_ref,
    status: row.status,
    providerTxnRef: row.provider_txn_ref,
    gross: koboFromDb(row.amount) + koboFromDb(row.fee),
    currency: row.currency,
    paidIntoRef: row.arrived_under ?? row.account_ref,
    postedAt: row.created_at,
  };
}

export function createPaymentCreditsRepo(db: DbOrTrx) {
  // The assigned-from lookup uses the partial index on inbound_events.assigned_entry_id (few rows).
  const select = () =>
    db('ledger_entries as e')
      .join('virtual_accounts as a', 'a.id', 'e.account_id')
      .where({ 'e.kind': 'payment', 'e.direction': 'credit' })
      .select(
        'e.id',
        'e.tenant_id',
        'a.account_ref',
        'e.status',
        'e.provider_txn_ref',
        'e.amount',
        'e.fee',
        'e.currency',
        'e.created_at',
        db.raw('(SELECT ie.alias_account_ref FROM inbound_events ie WHERE ie.assigned_entry_id = e.id LIMIT 1) AS arrived_under'),
      );

  return {
    /** A payment credit by entry id, whatever its status; undefined for any other entry. */
    async find(entryId: string): Promise<PaymentCreditRecord | undefined> {
      const row: CreditRow | undefined = await select().where('e.id', entryId).first();
      return row ? toRecord(row) : undefined;
    },

    /** The payment credit of a provider transaction (one at most), whatever its status. */
    async findByProviderTxnRef(providerTxnRef: string): Promise<PaymentCreditRecord | undefined> {
      const row: CreditRow | undefined = await select().where('e.provider_txn_ref', providerTxnRef).first();
      return row ? toRecord(row) : undefined;
    },

    /** The given entries that are still provisional payment credits. */
    async listProvisional(entryIds: string[]): Promise<PaymentCreditRecord[]> {
      if (entryIds.length === 0) return [];
      const rows: CreditRow[] = await select().whereIn('e.id', entryIds).where('e.status', 'provisional');
      return rows.map(toRecord);
    },
  };
}
