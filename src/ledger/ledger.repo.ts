import { runPrepared, type DbOrTrx, type Trx } from '../db';
import { customerLimitsSql, kycLimitBindings, type TierDefaults } from '../policies/kyc-limits/customer-limits';
import { koboFromDb, type Kobo } from '../money';
import { uuidv7 } from '../ids';
import type {
  AppendTotals,
  EntryDraft,
  EntryStatus,
  FundsSource,
  LedgerEntry,
  SystemAccount,
  SystemPosting,
  SystemTransactionKind,
} from './ledger.types';
import type { FundsStanding } from './funds-shortfall';
import type { ReservationKind } from './reservation-kinds';
import { LAGOS_TODAY } from '../policies/kyc-limits/daily-payout-limit';
import { appendFragment } from './posting-ctes';

/** Where a payout's account and customer stand (see payoutStanding). */
export interface PayoutStanding {
  customerId: string;
  accountRef: string;
  /** The account's freeze (see policies/account-freeze), null when it is not frozen. */
  freeze: { frozenFor: string; reason: string } | null;
  spendable: Kobo;
  tier: number;
  dailyLimit: Kobo | null;
  usedToday: Kobo;
}

export interface EntryRow {
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
  transaction_id: string;
  reverses_entry_id: string | null;
  balance_after: string;
  credits_to_date: string;
  debits_to_date: string;
  created_at: Date;
}

/** The columns toLedgerEntry reads, checked against EntryRow by the compiler. */
export const ENTRY_COLUMNS = Object.keys({
  id: true,
  tenant_id: true,
  account_id: true,
  seq: true,
  direction: true,
  kind: true,
  amount: true,
  fee: true,
  currency: true,
  status: true,
  narration: true,
  provider_txn_ref: true,
  transaction_group_id: true,
  transaction_id: true,
  reverses_entry_id: true,
  balance_after: true,
  credits_to_date: true,
  debits_to_date: true,
  created_at: true,
} satisfies Record<keyof EntryRow, true>) as Array<keyof EntryRow>;

/** ENTRY_COLUMNS as a select list: the statements run prepared name their columns (see runPrepared). */
const ENTRY_LIST = ENTRY_COLUMNS.join(', ');

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
    transactionId: row.transaction_id,
    reversesEntryId: row.reverses_entry_id,
    balanceAfter: koboFromDb(row.balance_after),
    creditsToDate: koboFromDb(row.credits_to_date),
    debitsToDate: koboFromDb(row.debits_to_date),
    createdAt: row.created_at,
  };
}

export function createLedgerRepo(db: DbOrTrx) {
  return {
    /** The appended entries, or null when the account does not exist or lacks the funds. */
    async append(
      trx: Trx,
      accountId: string,
      drafts: EntryDraft[],
      totals: AppendTotals,
      tierDefaults: TierDefaults,
    ): Promise<LedgerEntry[] | null> {
      const fragment = appendFragment('CAST(:account_id AS uuid)', drafts, totals);
      const result = await trx.raw(`WITH ${fragment.ctes} SELECT posting_inserted.* FROM posting_inserted, posting_moved ORDER BY seq`, {
        ...fragment.bindings,
        ...kycLimitBindings(tierDefaults),
        account_id: accountId,
      });
      const rows = result.rows as EntryRow[];
      return rows.length === drafts.length ? rows.map(toLedgerEntry) : null;
    },

    async accountExists(accountId: string, trx?: Trx): Promise<boolean> {
      return (await (trx ?? db)('virtual_accounts').where({ id: accountId }).first('id')) !== undefined;
    },

    async findEntry(entryId: string, trx?: Trx): Promise<LedgerEntry | undefined> {
      const { rows } = await runPrepared(trx ?? db, 'ledger-entry', `SELECT ${ENTRY_LIST} FROM ledger_entries WHERE id = :entryId`, {
        entryId,
      });
      return rows[0] ? toLedgerEntry(rows[0] as EntryRow) : undefined;
    },

    /** The reversal answering an entry, if it was reversed. */
    async findReversalOf(entryId: string, trx?: Trx): Promise<LedgerEntry | undefined> {
      const { rows } = await runPrepared(
        trx ?? db,
        'ledger-reversal-of',
        `SELECT ${ENTRY_LIST} FROM ledger_entries WHERE reverses_entry_id = :entryId AND kind = 'reversal' LIMIT 1`,
        { entryId },
      );
      return rows[0] ? toLedgerEntry(rows[0] as EntryRow) : undefined;
    },

    /** provisional -> confirmed; undefined when the entry had already left `provisional`. */
    async markConfirmed(trx: Trx, entryId: string): Promise<LedgerEntry | undefined> {
      const { rows } = await runPrepared(
        trx,
        'ledger-entry-confirm',
        `UPDATE ledger_entries SET status = 'confirmed', status_changed_at = clock_timestamp()
          WHERE id = :entryId AND status = 'provisional'
         RETURNING ${ENTRY_LIST}`,
        { entryId },
      );
      return rows[0] ? toLedgerEntry(rows[0] as EntryRow) : undefined;
    },

    /**
     * -> reversed, from provisional; or from confirmed for a settlement debit the provider refunded.
     * Undefined when the entry is in neither state (already reversed, or a confirmed credit). `wasConfirmed`:
     * the entry had been confirmed (a paid settlement), which decides the reversal's other side.
     */
    async markReversed(trx: Trx, entryId: string): Promise<{ entry: LedgerEntry; wasConfirmed: boolean } | undefined> {
      const { rows } = await runPrepared(
        trx,
        'ledger-entry-reverse',
        `WITH before AS (SELECT id, status FROM ledger_entries WHERE id = :entryId FOR UPDATE)
         UPDATE ledger_entries e SET status = 'reversed', status_changed_at = clock_timestamp()
           FROM before b
          WHERE e.id = b.id AND (e.status = 'provisional' OR (e.status = 'confirmed' AND e.kind = 'settlement'))
         RETURNING ${ENTRY_COLUMNS.map((column) => `e.${column}`).join(', ')}, b.status AS previous_status`,
        { entryId },
      );
      const row = rows[0] as (EntryRow & { previous_status: EntryStatus }) | undefined;
      return row ? { entry: toLedgerEntry(row), wasConfirmed: row.previous_status === 'confirmed' } : undefined;
    },

    /** The postings to system accounts of one of the tenant's transactions (its entries' counters, or rows of their own). */
    async systemPostingsOf(trx: Trx, tenantId: string, transactionId: string): Promise<SystemPosting[]> {
      const rows: Array<{ account: SystemAccount; amount: string }> = await trx('ledger_system_postings')
        .where({ tenant_id: tenantId, transaction_id: transactionId })
        .select('account', 'amount');
      return rows.map((row) => ({ account: row.account, amount: koboFromDb(row.amount) }));
    },

    /** A transaction between system accounts only (a payout leaving the provider, its fee). */
    async postSystemTransaction(
      trx: Trx,
      transaction: { tenantId: string; kind: SystemTransactionKind; reference: string; postings: SystemPosting[] },
    ): Promise<string> {
      const transactionId = uuidv7();
      await trx('ledger_system_posting_rows').insert(
        transaction.postings.map((posting) => ({
          transaction_id: transactionId,
          account: posting.account,
          tenant_id: transaction.tenantId,
          kind: transaction.kind,
          amount: posting.amount.toString(),
          reference: transaction.reference,
        })),
      );
      return transactionId;
    },

    /**
     * Locks these accounts' customers' rows in id order, then the accounts' rows in id order: the order every
     * posting takes (see posting-ctes), so a caller posting to several accounts in one transaction never
     * deadlocks another doing the same, or a posting. The lock a posting takes (FOR NO KEY UPDATE, so rows
     * referencing a customer or an account can still be inserted meanwhile).
     */
    async lockAccounts(trx: Trx, accountIds: string[]): Promise<void> {
      if (accountIds.length === 0) return;
      const ids = [...new Set(accountIds)];
      await trx.raw(
        `WITH locked_customers AS (
           SELECT id FROM customers WHERE id IN (SELECT customer_id FROM virtual_accounts WHERE id = ANY(CAST(? AS uuid[]))) ORDER BY id FOR NO KEY UPDATE
         )
         -- The count runs once before the first account's row is returned (and so locked): the customers first.
         SELECT id FROM virtual_accounts WHERE id = ANY(CAST(? AS uuid[])) AND (SELECT count(*) FROM locked_customers) > 0 ORDER BY id FOR NO KEY UPDATE`,
        [ids, ids],
      );
    },

    /**
     * What a payout from `accountId` may spend under `from` (its held money apart) and where its customer stands
     * against the daily payout limit. Read in a transaction holding the rows' locks (lockAccounts), it holds until
     * the caller posts; read without them, it is a snapshot. Undefined when the account does not exist.
     */
    async payoutStanding(
      trx: DbOrTrx,
      accountId: string,
      from: FundsSource,
      tierDefaults: TierDefaults,
    ): Promise<PayoutStanding | undefined> {
      const result = await trx.raw(
        `WITH standing_customer AS (
           SELECT c.id, c.tenant_id, c.kyc_tier, c.debits_day, c.debits_day_total
             FROM customers c JOIN virtual_accounts a ON a.customer_id = c.id WHERE a.id = :account_id
         ), standing_limits AS (
           ${customerLimitsSql('standing_customer')}
         )
         SELECT a.customer_id, a.account_ref, a.frozen_for, a.frozen_reason,
                ledger_spendable(a.ledger_balance, a.held_balance, a.pending_credits, CAST(:spend_available AS boolean)) AS spendable,
                l.tier, l.daily_debits AS daily_limit,
                CASE WHEN c.debits_day = ${LAGOS_TODAY} THEN c.debits_day_total ELSE 0 END AS used_today
           FROM virtual_accounts a JOIN standing_customer c ON c.id = a.customer_id JOIN standing_limits l ON l.customer_id = c.id
          WHERE a.id = :account_id`,
        { account_id: accountId, spend_available: from === 'available', ...kycLimitBindings(tierDefaults) },
      );
      const row = result.rows[0] as
        | {
            customer_id: string;
            account_ref: string;
            frozen_for: string | null;
            frozen_reason: string | null;
            spendable: string;
            tier: number;
            daily_limit: string | null;
            used_today: string;
          }
        | undefined;
      return row
        ? {
            customerId: row.customer_id,
            accountRef: row.account_ref,
            freeze: row.frozen_for === null ? null : { frozenFor: row.frozen_for, reason: row.frozen_reason ?? '' },
            spendable: koboFromDb(row.spendable),
            tier: row.tier,
            dailyLimit: row.daily_limit === null ? null : koboFromDb(row.daily_limit),
            usedToday: koboFromDb(row.used_today),
          }
        : undefined;
    },

    /**
     * The account's money, what it may spend under `from` and the kinds of its open reservations, to explain a payout refused
     * for its funds; undefined when it does not exist.
     */
    async fundsStanding(trx: DbOrTrx, accountId: string, from: FundsSource): Promise<FundsStanding | undefined> {
      const result = await trx.raw(
        `SELECT a.ledger_balance, a.pending_credits, a.held_balance,
                ledger_spendable(a.ledger_balance, a.held_balance, a.pending_credits, CAST(? AS boolean)) AS spendable,
                coalesce((SELECT array_agg(DISTINCT r.kind) FROM ledger_reservations r WHERE r.account_id = a.id AND r.open_amount > 0),
                         '{}') AS hold_kinds
           FROM virtual_accounts a WHERE a.id = ?`,
        [from === 'available', accountId],
      );
      const row = result.rows[0] as
        | { ledger_balance: string; pending_credits: string; held_balance: string; spendable: string; hold_kinds: ReservationKind[] }
        | undefined;
      return row
        ? {
            ledgerBalance: koboFromDb(row.ledger_balance),
            pendingCredits: koboFromDb(row.pending_credits),
            heldBalance: koboFromDb(row.held_balance),
            spendable: koboFromDb(row.spendable),
            holdKinds: row.hold_kinds,
          }
        : undefined;
    },

    /** Locks a customer's row, as every posting to one of its accounts does before the account's. */
    async lockCustomer(trx: Trx, customerId: string): Promise<void> {
      await trx.raw('SELECT id FROM customers WHERE id = ? FOR NO KEY UPDATE', [customerId]);
    },

    async releasePending(trx: Trx, accountId: string, amount: Kobo): Promise<void> {
      await trx('virtual_accounts')
        .where({ id: accountId })
        .update({ pending_credits: trx.raw('pending_credits - ?', [amount.toString()]), updated_at: trx.fn.now() });
    },
  };
}
