import { runPrepared, type DbOrTrx } from '../db';
import { ENTRY_COLUMNS, toLedgerEntry, type EntryRow } from './ledger.repo';
import type { LedgerEntry } from './ledger.types';
import { koboFromDb, type Kobo } from '../money';
import type { MismatchAction, PaymentJudgement, Variance } from '../policies/dynamic-account-amount/amount-policy';

/**
 * How the statement's caller (accounts) reads its account row in the page's statement: the ledger names
 * the account's own columns only through these (accounts' prefixedAccountColumns and accountFromPrefixed).
 */
export interface AccountColumns<Account> {
  /** The account's columns of table alias `alias` as `prefix`<column>, each NULL unless `onlyWhere` holds. */
  select(alias: string, prefix: string, onlyWhere: string): string;
  /** The account read back from a row of those columns. */
  read(row: Record<string, unknown>, prefix: string): Account;
}

/**
 * A statement line: the entry, for a transfer's entry the reference of the account on its other side, and for
 * a payment credit to a dynamic account its judgement.
 */
export type StatementEntry = LedgerEntry & { counterpartAccountRef: string | null; judgement: PaymentJudgement | null };

/**
 * An account's running columns after its last entry before some point: that entry's, or those its archived entries
 * left behind (see docs/scaling.md#archived-months).
 */
export interface RunningColumns {
  seq: bigint;
  balanceAfter: Kobo;
  creditsToDate: Kobo;
  debitsToDate: Kobo;
}

/** The account's running columns before an instant, none before its first entry, or `archived` when only its archive knows them. */
export type RunningBefore = RunningColumns | { archived: Date } | undefined;

/** A whole-history statement page read with its account in one statement. */
export interface AccountPage<Account> {
  account: Account;
  /** Where the account's entries still attached begin: what its archived entries left behind, if any. */
  archived: RunningColumns | undefined;
  /** The seq of the cursor entry in this account; null when a cursor was given and is not this account's. */
  cursorSeq: bigint | null;
  rows: StatementEntry[];
}

type StatementRow = EntryRow & {
  counterpart_account_ref: string | null;
  judged_expected_amount: string | null;
  judged_amount_received: string | null;
  judged_variance: Variance | null;
  judged_action: MismatchAction | null;
};

const toStatementEntry = (row: StatementRow): StatementEntry => ({
  ...toLedgerEntry(row),
  counterpartAccountRef: row.counterpart_account_ref,
  judgement:
    row.judged_variance === null || row.judged_action === null || row.judged_amount_received === null
      ? null
      : {
          expectedAmount: row.judged_expected_amount === null ? null : koboFromDb(row.judged_expected_amount),
          amountReceived: koboFromDb(row.judged_amount_received),
          variance: row.judged_variance,
          action: row.judged_action,
        },
});

/**
 * For a transfer's entry of `entries` (an alias), the other entry of its transaction: a transfer is one debit and
 * one credit, on two accounts of the tenant. An index lookup on (tenant_id, transaction_id), for transfer lines only.
 * And for a payment credit to a dynamic account, its judgement (a key lookup).
 */
const COUNTERPART_SQL = (entries: string): string => `
    LEFT JOIN LATERAL (
      SELECT oa.account_ref AS counterpart_account_ref
        FROM ledger_entries o JOIN virtual_accounts oa ON oa.id = o.account_id
       WHERE ${entries}.kind = 'transfer' AND o.tenant_id = ${entries}.tenant_id AND o.transaction_id = ${entries}.transaction_id
         AND o.id <> ${entries}.id
       LIMIT 1
    ) counterpart ON true
    LEFT JOIN ledger_payment_variances judged ON judged.entry_id = ${entries}.id`;

/** The columns of a line's judgement (see COUNTERPART_SQL's join), NULL on every line but a dynamic account's payment credit. */
const JUDGEMENT_COLUMNS = `judged.expected_amount AS judged_expected_amount, judged.amount_received AS judged_amount_received,
         judged.variance AS judged_variance, judged.action AS judged_action`;

const ACCOUNT_PREFIX = 'account__';

/** The running columns of row `row` named with `prefix` (seq, balance_after, credits_to_date, debits_to_date). */
const runningColumnsOf = (row: Record<string, unknown>, prefix: string): RunningColumns => ({
  seq: BigInt(row[`${prefix}seq`] as string),
  balanceAfter: koboFromDb(row[`${prefix}balance_after`] as string),
  creditsToDate: koboFromDb(row[`${prefix}credits_to_date`] as string),
  debitsToDate: koboFromDb(row[`${prefix}debits_to_date`] as string),
});

/**
 * The account (by tenant and reference), the cursor entry's seq, and the entries after it up to the
 * account's `last_seq`, in one statement: one snapshot, so the page stops exactly where the totals read
 * with it stop, and one round trip, which is what a page costs on a busy machine. The page is a LEFT
 * JOIN, so an account without entries still comes back (one row of NULL entry columns); what the account's archived
 * entries left behind comes with it (see docs/scaling.md#archived-months), where its entries still attached begin. The account's
 * columns come on the first row only: repeated on all 51 rows they doubled the fields pg parses, about
 * half a millisecond of the API's CPU per page.
 */
const ACCOUNT_PAGE_SQL = (withCursor: boolean, accountColumns: AccountColumns<unknown>): string => `
  SELECT ${accountColumns.select('a', ACCOUNT_PREFIX, 'coalesce(e.page_row, 1) = 1')}, ${withCursor ? 'c.seq' : '0'} AS cursor_seq, e.*,
         counterpart.counterpart_account_ref, ${JUDGEMENT_COLUMNS}, z.last_seq AS archived_seq, z.balance_after AS archived_balance_after,
         z.credits_to_date AS archived_credits_to_date, z.debits_to_date AS archived_debits_to_date
    FROM virtual_accounts a
    LEFT JOIN ledger_archived_accounts z ON z.account_id = a.id
    ${withCursor ? 'LEFT JOIN ledger_entries c ON c.account_id = a.id AND c.id = :cursor' : ''}
    LEFT JOIN LATERAL (
      SELECT ${ENTRY_COLUMNS.join(', ')}, row_number() OVER (ORDER BY seq) AS page_row FROM ledger_entries
       WHERE account_id = a.id AND seq > ${withCursor ? 'coalesce(c.seq, a.last_seq)' : '0'} AND seq <= a.last_seq
       ORDER BY seq
       LIMIT :limit
    ) e ON true${COUNTERPART_SQL('e')}
   WHERE a.tenant_id = :tenantId AND a.account_ref = :accountRef
   ORDER BY e.seq`;

/**
 * Statement reads: every one is an index lookup on (account_id, seq) or (account_id, created_at). A period's page reads
 * only the period's months (the entries are partitioned by month of created_at); a page of the whole history reads
 * each month's index once, merged in seq order.
 */
export function createStatementRepo<Account>(db: DbOrTrx, accountColumns: AccountColumns<Account>) {
  return {
    /** See ACCOUNT_PAGE_SQL; undefined when the tenant has no such account. */
    async accountPage(
      tenantId: string,
      accountRef: string,
      afterEntryId: string | undefined,
      limit: number,
    ): Promise<AccountPage<Account> | undefined> {
      const { rows } = (await runPrepared(
        db,
        afterEntryId !== undefined ? 'statement-page-after' : 'statement-page',
        ACCOUNT_PAGE_SQL(afterEntryId !== undefined, accountColumns),
        {
          tenantId,
          accountRef,
          limit,
          ...(afterEntryId !== undefined ? { cursor: afterEntryId } : {}),
        },
      )) as {
        rows: Array<StatementRow & { cursor_seq: string | null } & Record<string, unknown>>;
      };
      const first = rows[0];
      if (!first) return undefined;
      return {
        account: accountColumns.read(first, ACCOUNT_PREFIX),
        archived: first.archived_seq === null ? undefined : runningColumnsOf(first, 'archived_'),
        cursorSeq: first.cursor_seq === null ? null : BigInt(first.cursor_seq),
        rows: rows.filter((row) => row.id !== null).map(toStatementEntry),
      };
    },

    async entrySeqInAccount(accountId: string, entryId: string): Promise<bigint | undefined> {
      const { rows } = (await runPrepared(
        db,
        'statement-cursor-seq',
        'SELECT seq FROM ledger_entries WHERE account_id = :accountId AND id = :entryId',
        {
          accountId,
          entryId,
        },
      )) as { rows: Array<{ seq: string }> };
      return rows[0] ? BigInt(rows[0].seq) : undefined;
    },

    /** What the account's archived entries left behind, where its entries still attached begin; undefined without any. */
    async archived(accountId: string): Promise<RunningColumns | undefined> {
      const { rows } = (await runPrepared(
        db,
        'statement-archived',
        `SELECT last_seq AS seq, balance_after, credits_to_date, debits_to_date FROM ledger_archived_accounts WHERE account_id = :accountId`,
        { accountId },
      )) as { rows: Array<Record<string, unknown>> };
      return rows[0] ? runningColumnsOf(rows[0], '') : undefined;
    },

    /**
     * The running columns after the last entry posted strictly before `at` (entries are stamped in seq order under the
     * account lock): an attached entry's, or, when none is before `at`, those the account's archived entries left
     * behind, provided its last archived entry is before `at` (else `archived`, with that entry's time: the instant lies
     * among archived entries, whose running columns are no longer read). One index probe and one key lookup.
     */
    async runningBefore(accountId: string, at: Date): Promise<RunningBefore> {
      const { rows } = (await runPrepared(
        db,
        'statement-running-before',
        `SELECT * FROM (
           (SELECT 1 AS source, seq, balance_after, credits_to_date, debits_to_date, NULL::timestamptz AS archived_at FROM ledger_entries
             WHERE account_id = :accountId AND created_at < :at ORDER BY created_at DESC, seq DESC LIMIT 1)
           UNION ALL
           SELECT 2, last_seq, balance_after, credits_to_date, debits_to_date, CASE WHEN last_created_at >= :at THEN last_created_at END
             FROM ledger_archived_accounts WHERE account_id = :accountId
         ) running ORDER BY source LIMIT 1`,
        { accountId, at },
      )) as { rows: Array<Record<string, unknown> & { archived_at: Date | null }> };
      const row = rows[0];
      if (!row) return undefined;
      return row.archived_at === null ? runningColumnsOf(row, '') : { archived: row.archived_at };
    },

    /**
     * The entries of seqs (afterSeq, throughSeq], of a period posted within `period` (from and to, either open): the
     * bounds add nothing to the seqs (entries are stamped in seq order) but let Postgres read only the period's months.
     */
    async page(
      accountId: string,
      afterSeq: bigint,
      throughSeq: bigint,
      limit: number,
      period: { from?: Date; to?: Date } = {},
    ): Promise<StatementEntry[]> {
      const { rows } = (await runPrepared(
        db,
        `statement-period-page${period.from ? '-from' : ''}${period.to ? '-to' : ''}`,
        `SELECT e.*, counterpart.counterpart_account_ref, ${JUDGEMENT_COLUMNS}
           FROM (SELECT ${ENTRY_COLUMNS.join(', ')} FROM ledger_entries
                  WHERE account_id = :accountId AND seq > :afterSeq AND seq <= :throughSeq
                    ${period.from ? 'AND created_at >= :from' : ''} ${period.to ? 'AND created_at < :to' : ''}
                  ORDER BY seq LIMIT :limit) e
           ${COUNTERPART_SQL('e')}
          ORDER BY e.seq`,
        {
          accountId,
          afterSeq: afterSeq.toString(),
          throughSeq: throughSeq.toString(),
          limit,
          ...(period.from ? { from: period.from } : {}),
          ...(period.to ? { to: period.to } : {}),
        },
      )) as { rows: StatementRow[] };
      return rows.map(toStatementEntry);
    },
  };
}
