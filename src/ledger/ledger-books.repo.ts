import type { DbOrTrx } from '../db';
import { koboFromDb, type Kobo } from '../money';
import { endOfMillisecond } from './balance-history';
import { SYSTEM_ACCOUNTS, type EntryKind, type EntryStatus, type SystemAccount, type SystemTransactionKind } from './ledger.types';

/** One account's line in a tenant's books: a system account, or all customer accounts together. */
export interface BooksLine {
  code: SystemAccount | 'customers';
  balance: Kobo;
}

/** A customer account's ledger balance, as the books list them. */
export interface CustomerBalance {
  id: string;
  accountRef: string;
  balance: Kobo;
}

/** One posting of a transaction as the journal shows it. */
export interface JournalPosting {
  /** A system account's code, or `customer` with the account's reference. */
  account: SystemAccount | 'customer';
  accountRef: string | null;
  /** Signed: + credit, - debit. */
  amount: Kobo;
  /** A customer entry's own id and status (provisional, confirmed, reversed); null on a system account. */
  entryId: string | null;
  status: EntryStatus | null;
}

export interface JournalTransaction {
  id: string;
  kind: EntryKind | SystemTransactionKind;
  /** The provider's transaction reference of a payment, or a settlement's merchantTxRef. */
  reference: string | null;
  createdAt: Date;
  postings: JournalPosting[];
}

/**
 * Account `a`'s ledger balance after its last entry before `:before`, beside its archived entries' carried-forward row
 * `z` (see docs/scaling.md#archived-months): an attached entry's running balance, else the archive's. The caller
 * refuses an instant before the tenant's archive ends (see ledger-archive.repo.ts, archiveEnd).
 */
const BALANCE_BEFORE = `coalesce((SELECT balance_after FROM ledger_entries
                        WHERE account_id = a.id AND created_at < :before
                        ORDER BY created_at DESC, seq DESC LIMIT 1), z.balance_after, 0)`;

/** The ledger's books read whole: balances by account and the journal of transactions. Read-only. */
export function createLedgerBooksRepo(db: DbOrTrx) {
  return {
    /**
     * The tenant's balances: each system account (a sum of its postings: they have no running total) and its
     * customer accounts as one line (their running balances). They sum to zero.
     */
    async balances(tenantId: string): Promise<BooksLine[]> {
      const result = await db.raw(
        `SELECT account, sum(amount)::text AS balance FROM (
           SELECT account, amount FROM ledger_system_postings WHERE tenant_id = :tenant_id
           UNION ALL
           SELECT account, amount FROM ledger_archived_system_postings WHERE tenant_id = :tenant_id
         ) postings GROUP BY account
         UNION ALL
         SELECT 'customers', coalesce(sum(ledger_balance), 0)::text FROM virtual_accounts WHERE tenant_id = :tenant_id`,
        { tenant_id: tenantId },
      );
      const byAccount = new Map(
        (result.rows as Array<{ account: string; balance: string }>).map((row) => [row.account, koboFromDb(row.balance)]),
      );
      return [...SYSTEM_ACCOUNTS, 'customers' as const].map((code) => ({ code, balance: byAccount.get(code) ?? 0n }));
    },

    /**
     * The tenant's balances as they stood at `at` (to the millisecond, as the API shows times): each system account's
     * postings up to then, and each customer account's running balance after its last entry up to then (one probe
     * of the index on (account_id, created_at, seq) per account), together. They sum to zero, as every transaction is
     * written whole at one time.
     */
    async balancesAt(tenantId: string, at: Date): Promise<BooksLine[]> {
      const result = await db.raw(
        `SELECT account, sum(amount)::text AS balance FROM (
           SELECT account, amount FROM ledger_system_postings WHERE tenant_id = :tenant_id AND created_at < :before
           UNION ALL
           SELECT account, amount FROM ledger_archived_system_postings WHERE tenant_id = :tenant_id
         ) postings GROUP BY account
         UNION ALL
         SELECT 'customers', coalesce(sum(${BALANCE_BEFORE}), 0)::text
           FROM virtual_accounts a
           LEFT JOIN ledger_archived_accounts z ON z.account_id = a.id
          WHERE a.tenant_id = :tenant_id`,
        { tenant_id: tenantId, before: endOfMillisecond(at) },
      );
      const byAccount = new Map(
        (result.rows as Array<{ account: string; balance: string }>).map((row) => [row.account, koboFromDb(row.balance)]),
      );
      return [...SYSTEM_ACCOUNTS, 'customers' as const].map((code) => ({ code, balance: byAccount.get(code) ?? 0n }));
    },

    /**
     * A page of the tenant's customer accounts, in id order after `afterId`, each with its ledger balance: now, or
     * with `at` the running balance after its last entry at or before then (one index probe each).
     */
    async customerBalances(tenantId: string, at: Date | undefined, afterId: string | null, limit: number): Promise<CustomerBalance[]> {
      const balance = at === undefined ? 'a.ledger_balance' : BALANCE_BEFORE;
      const result = await db.raw(
        `SELECT a.id, a.account_ref, ${balance}::text AS balance FROM virtual_accounts a
           LEFT JOIN ledger_archived_accounts z ON z.account_id = a.id
          WHERE a.tenant_id = :tenant_id AND (CAST(:after_id AS uuid) IS NULL OR a.id > CAST(:after_id AS uuid))
          ORDER BY a.id LIMIT :limit`,
        { tenant_id: tenantId, after_id: afterId, limit, ...(at === undefined ? {} : { before: endOfMillisecond(at) }) },
      );
      return (result.rows as Array<{ id: string; account_ref: string; balance: string }>).map((row) => ({
        id: row.id,
        accountRef: row.account_ref,
        balance: koboFromDb(row.balance),
      }));
    },

    /**
     * What the books say the provider holds for every tenant together: the gross received less paid out
     * (clearing) less the fees the provider kept. The provider's wallet balance, when nothing is in flight.
     */
    async heldAtProvider(): Promise<Kobo> {
      const result = await db.raw(
        // A tenant moved to another cluster is counted there: its read-only copy here is left out.
        `SELECT coalesce(-sum(p.amount), 0)::text AS held
           FROM (SELECT tenant_id, account, amount FROM ledger_system_postings
                 UNION ALL
                 SELECT tenant_id, account, amount FROM ledger_archived_system_postings) p
          WHERE p.account IN ('clearing', 'provider_fees')
            AND NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = p.tenant_id AND t.moved_out_at IS NOT NULL)`,
      );
      return koboFromDb((result.rows[0] as { held: string }).held);
    },

    /**
     * The tenant's transactions, newest first (transaction ids are time-ordered), `limit` of them before the
     * transaction `beforeId` (exclusive) when given, each with its postings.
     */
    async journal(tenantId: string, beforeId: string | null, limit: number): Promise<JournalTransaction[]> {
      // Transactions with system-posting rows, and those with entries (whose counters are on them): each branch an index
      // scan in transaction order.
      const page = `SELECT transaction_id FROM (
             (SELECT transaction_id FROM ledger_system_posting_rows
               WHERE tenant_id = :tenant_id AND (CAST(:before_id AS uuid) IS NULL OR transaction_id < CAST(:before_id AS uuid))
               ORDER BY transaction_id DESC LIMIT :limit)
             UNION
             (SELECT transaction_id FROM ledger_entries
               WHERE tenant_id = :tenant_id AND (CAST(:before_id AS uuid) IS NULL OR transaction_id < CAST(:before_id AS uuid))
               ORDER BY transaction_id DESC LIMIT :limit)
           ) ids ORDER BY transaction_id DESC LIMIT :limit`;
      return transactionsWithPostings(db, tenantId, page, { before_id: beforeId, limit });
    },

    /** One of the tenant's transactions with its postings; undefined when the tenant has none of that id. */
    async transaction(tenantId: string, transactionId: string): Promise<JournalTransaction | undefined> {
      const [found] = await transactionsWithPostings(db, tenantId, 'SELECT CAST(:transaction_id AS uuid) AS transaction_id', {
        transaction_id: transactionId,
      });
      return found;
    },
  };
}

/**
 * The transactions `pageSql` selects (one column, transaction_id), newest first, with their postings. The
 * postings are read by tenant and transaction id, as each transaction is judged balanced: the system-posting rows,
 * the entries' counters (as the ledger_system_postings view adds them, read here from the page's entries so that
 * each is an index probe) and the entries.
 */
async function transactionsWithPostings(
  db: DbOrTrx,
  tenantId: string,
  pageSql: string,
  bindings: Record<string, string | number | null>,
): Promise<JournalTransaction[]> {
  const result = await db.raw(
    `WITH page AS (${pageSql}), postings AS (
       SELECT s.transaction_id, s.kind, s.reference, s.created_at, s.account, NULL::text AS account_ref, s.amount, NULL::uuid AS entry_id, NULL::text AS status
         FROM ledger_system_posting_rows s JOIN page p ON p.transaction_id = s.transaction_id
        WHERE s.tenant_id = :tenant_id
       UNION ALL
       SELECT e.transaction_id, e.kind, e.provider_txn_ref, e.created_at, c.account, NULL, c.amount, NULL, NULL
         FROM ledger_entries e JOIN page p ON p.transaction_id = e.transaction_id
        CROSS JOIN LATERAL (VALUES ('clearing', e.clearing_amount), ('provider_fees', e.provider_fees_amount),
                                   ('payouts_in_transit', e.payouts_in_transit_amount)) AS c(account, amount)
        WHERE e.tenant_id = :tenant_id AND c.amount <> 0
       UNION ALL
       SELECT e.transaction_id, e.kind, e.provider_txn_ref, e.created_at, 'customer', a.account_ref,
              CASE WHEN e.direction = 'credit' THEN e.amount ELSE -e.amount END, e.id, e.status
         FROM ledger_entries e JOIN page p ON p.transaction_id = e.transaction_id JOIN virtual_accounts a ON a.id = e.account_id
        WHERE e.tenant_id = :tenant_id
     )
     SELECT transaction_id, min(kind) AS kind, min(reference) AS reference, min(created_at) AS created_at,
            jsonb_agg(jsonb_build_object('account', account, 'accountRef', account_ref, 'amount', amount::text, 'entryId', entry_id, 'status', status)
                      ORDER BY account = 'customer' DESC, account_ref, account) AS postings
       FROM postings GROUP BY transaction_id ORDER BY transaction_id DESC`,
    { ...bindings, tenant_id: tenantId },
  );
  type Row = {
    transaction_id: string;
    kind: JournalTransaction['kind'];
    reference: string | null;
    created_at: Date;
    postings: Array<Omit<JournalPosting, 'amount'> & { amount: string }>;
  };
  return (result.rows as Row[]).map((row) => ({
    id: row.transaction_id,
    kind: row.kind,
    reference: row.reference,
    createdAt: row.created_at,
    postings: row.postings.map((posting) => ({ ...posting, amount: koboFromDb(posting.amount) })),
  }));
}
