import type { DbOrTrx, Trx } from '../db';
import { koboFromDb } from '../money';
import type { AccountTotals, EntryStatus, LedgerEntry } from './ledger.types';

interface EntryRow {
  id: string;
  tenant_id: string;
  account_id: string;
  seq: string;
  direction: LedgerEntry['direction'];
  kind: LedgerEntry['kind'];
  amount: string;
  fee: string;
  currency: 'NGN';
  status: EntryStatus;
  narration: string;
  provider_txn_ref: string | null;
  transaction_group_id: string;
  reverses_entry_id: string | null;
  balance_after: string;
  credits_to_date: string;
  debits_to_date: string;
  created_at: Date;
}

interface TotalsRow {
  id: string;
  tenant_id: string;
  ledger_balance: string;
  pending_credits: string;
  total_credits: string;
  total_debits: string;
  last_seq: string;
}

export type NewEntryRow = Omit<EntryRow, 'seq' | 'amount' | 'fee' | 'balance_after' | 'credits_to_date' | 'debits_to_date' | 'created_at'> & {
  seq: bigint;
  amount: bigint;
  fee: bigint;
  balance_after: bigint;
  credits_to_date: bigint;
  debits_to_date: bigint;
};

export function toLedgerEntry(row: EntryRow): LedgerEntry {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    accountId: row.account_id,
    seq: BigInt(row.seq),
    direction: row.direction,
    kind: row.kind,
    amount: koboFromDb(row.amount),
    fee: koboFromDb(row.fee),
    currency: row.currency,
    status: row.status,
    narration: row.narration,
    providerTxnRef: row.provider_txn_ref,
    transactionGroupId: row.transaction_group_id,
    reversesEntryId: row.reverses_entry_id,
    balanceAfter: koboFromDb(row.balance_after),
    creditsToDate: koboFromDb(row.credits_to_date),
    debitsToDate: koboFromDb(row.debits_to_date),
    createdAt: row.created_at,
  };
}

function toTotals(row: TotalsRow): AccountTotals {
  return {
    accountId: row.id,
    tenantId: row.tenant_id,
    ledgerBalance: koboFromDb(row.ledger_balance),
    pendingCredits: koboFromDb(row.pending_credits),
    totalCredits: koboFromDb(row.total_credits),
    totalDebits: koboFromDb(row.total_debits),
    lastSeq: BigInt(row.last_seq),
  };
}

const TOTALS_COLUMNS = ['id', 'tenant_id', 'ledger_balance', 'pending_credits', 'total_credits', 'total_debits', 'last_seq'];

export function createLedgerRepo(db: DbOrTrx) {
  return {
    /** The account row lock every posting takes: it serialises seq, totals and balance checks. */
    async lockAccountTotals(trx: Trx, accountId: string): Promise<AccountTotals | undefined> {
      const row: TotalsRow | undefined = await trx('virtual_accounts').where({ id: accountId }).forUpdate().first(TOTALS_COLUMNS);
      return row ? toTotals(row) : undefined;
    },

    async accountTotals(accountId: string): Promise<AccountTotals | undefined> {
      const row: TotalsRow | undefined = await db('virtual_accounts').where({ id: accountId }).first(TOTALS_COLUMNS);
      return row ? toTotals(row) : undefined;
    },

    async insertEntries(trx: Trx, rows: NewEntryRow[]): Promise<LedgerEntry[]> {
      const inserted: EntryRow[] = await trx('ledger_entries')
        .insert(rows.map((row) => ({ ...row, created_at: trx.raw('clock_timestamp()') })))
        .returning('*');
      return inserted.map(toLedgerEntry);
    },

    async saveTotals(trx: Trx, totals: AccountTotals): Promise<void> {
      await trx('virtual_accounts').where({ id: totals.accountId }).update({
        ledger_balance: totals.ledgerBalance,
        pending_credits: totals.pendingCredits,
        total_credits: totals.totalCredits,
        total_debits: totals.totalDebits,
        last_seq: totals.lastSeq,
        updated_at: trx.fn.now(),
      });
    },

    async findEntry(entryId: string, trx?: Trx): Promise<LedgerEntry | undefined> {
      const row: EntryRow | undefined = await (trx ?? db)('ledger_entries').where({ id: entryId }).first();
      return row ? toLedgerEntry(row) : undefined;
    },

    /** Conditional status move; undefined when the entry was not in one of the `from` states. */
    async moveStatus(trx: Trx, entryId: string, from: EntryStatus[], to: EntryStatus): Promise<LedgerEntry | undefined> {
      const [row]: EntryRow[] = await trx('ledger_entries')
        .where({ id: entryId })
        .whereIn('status', from)
        .update({ status: to, status_changed_at: trx.raw('clock_timestamp()') })
        .returning('*');
      return row ? toLedgerEntry(row) : undefined;
    },
  };
}

export type LedgerRepo = ReturnType<typeof createLedgerRepo>;
