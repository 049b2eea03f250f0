import type { DbOrTrx } from '../db';

/** The first instant of month `:before` (YYYY-MM-01, a binding), Africa/Lagos: the archive holds what was posted before it. */
const BOUNDARY = `CAST(CAST(:before AS date) AS timestamp) AT TIME ZONE 'Africa/Lagos'`;

/** Money or work of the ledger still moving in the months before a boundary: what refuses their archive. */
export interface LedgerStillMoving {
  what: string;
  count: number;
}

/**
 * The ledger's side of archiving its months (see docs/scaling.md#archived-months): what refuses it, and what the
 * archived entries leave behind, written in the transaction that detaches them. Each account keeps its last archived
 * entry's running columns and seq, and the count and sums of its archived entries (ledger_archived_accounts); each
 * tenant's system accounts keep the count and sum of their archived postings (ledger_archived_system_postings). A
 * later month archived adds to both.
 */
export function createLedgerArchiveRepo(db: DbOrTrx) {
  return {
    /**
     * The first instant after the archive of tenant `tenantId` (of any tenant when null): the start of the month its
     * archive ends before, by its accounts' carried rows and its system accounts'; null without an archive. A read of
     * balances at an earlier instant, or over a window starting earlier, would miss what is archived.
     */
    async archiveEnd(tenantId: string | null): Promise<Date | null> {
      const { rows } = await db.raw(
        `SELECT max(CAST(archived_before AS timestamp) AT TIME ZONE 'Africa/Lagos') AS ends FROM (
           SELECT tenant_id, archived_before FROM ledger_archived_accounts
           UNION ALL
           SELECT tenant_id, archived_before FROM ledger_archived_system_postings
         ) archived WHERE CAST(:tenantId AS uuid) IS NULL OR tenant_id = CAST(:tenantId AS uuid)`,
        { tenantId },
      );
      return (rows[0] as { ends: Date | null }).ends;
    },

    /**
     * What of the ledger posted before `before` is not final: a provisional entry (a credit not yet confirmed, a payout
     * in flight), a reservation still holding part of an entry, a settlement not final or a successful one the
     * provider may still refund (its status changed less than `refundWatchMs` ago). Each with its count, those with
     * none left out.
     */
    async stillMoving(before: string, refundWatchMs: number): Promise<LedgerStillMoving[]> {
      const { rows } = await db.raw(
        `SELECT 'provisional entries' AS what, count(*) AS count FROM ledger_entries
          WHERE created_at < ${BOUNDARY} AND status = 'provisional'
         UNION ALL
         SELECT 'reservations still holding an entry', count(*) FROM ledger_reservations r
          WHERE r.open_amount > 0 AND EXISTS (SELECT 1 FROM ledger_entries e WHERE e.id = r.owner_id AND e.created_at < ${BOUNDARY})
         UNION ALL
         SELECT 'settlements not final', count(*) FROM settlements s
          WHERE EXISTS (SELECT 1 FROM ledger_entries e WHERE e.id = s.debit_entry_id AND e.created_at < ${BOUNDARY})
            AND (s.status IN ('pending', 'processing')
                 OR (s.status = 'success' AND s.updated_at > now() - CAST(:refundWatch AS interval)))`,
        { before, refundWatch: `${refundWatchMs} milliseconds` },
      );
      return (rows as Array<{ what: string; count: string }>)
        .map((row) => ({ what: row.what, count: Number(row.count) }))
        .filter((row) => row.count > 0);
    },

    /**
     * Adds what the entries and system postings before `before` leave behind to each account's and each tenant's
     * carried-forward rows: the entries of those months are all later than any archived before, so an account's last
     * archived entry becomes its last entry of those months. Returns how many accounts and tenants' system accounts it wrote.
     */
    async carryForward(before: string): Promise<{ accounts: number; systemAccounts: number }> {
      const accounts = await db.raw(
        `WITH archived AS (
           SELECT account_id, tenant_id, count(*) AS entries,
                  coalesce(sum(amount) FILTER (WHERE direction = 'credit'), 0) AS credits,
                  coalesce(sum(amount) FILTER (WHERE direction = 'debit'), 0) AS debits
             FROM ledger_entries WHERE created_at < ${BOUNDARY} GROUP BY account_id, tenant_id
         ), last AS (
           SELECT DISTINCT ON (account_id) account_id, id, seq, created_at, balance_after, credits_to_date, debits_to_date
             FROM ledger_entries WHERE created_at < ${BOUNDARY} ORDER BY account_id, seq DESC
         )
         INSERT INTO ledger_archived_accounts AS c (account_id, tenant_id, archived_before, entries, credits, debits, last_entry_id,
                                                    last_seq, last_created_at, balance_after, credits_to_date, debits_to_date)
         SELECT a.account_id, a.tenant_id, CAST(:before AS date), a.entries, a.credits, a.debits, l.id, l.seq, l.created_at,
                l.balance_after, l.credits_to_date, l.debits_to_date
           FROM archived a JOIN last l ON l.account_id = a.account_id
         ON CONFLICT (account_id) DO UPDATE
            SET archived_before = EXCLUDED.archived_before, entries = c.entries + EXCLUDED.entries, credits = c.credits + EXCLUDED.credits,
                debits = c.debits + EXCLUDED.debits, last_entry_id = EXCLUDED.last_entry_id, last_seq = EXCLUDED.last_seq,
                last_created_at = EXCLUDED.last_created_at, balance_after = EXCLUDED.balance_after,
                credits_to_date = EXCLUDED.credits_to_date, debits_to_date = EXCLUDED.debits_to_date`,
        { before },
      );
      const systemAccounts = await db.raw(
        `INSERT INTO ledger_archived_system_postings AS c (tenant_id, account, archived_before, postings, amount)
         SELECT tenant_id, account, CAST(:before AS date), count(*), sum(amount)
           FROM ledger_system_postings WHERE created_at < ${BOUNDARY} GROUP BY tenant_id, account
         ON CONFLICT (tenant_id, account) DO UPDATE
            SET archived_before = EXCLUDED.archived_before, postings = c.postings + EXCLUDED.postings, amount = c.amount + EXCLUDED.amount`,
        { before },
      );
      return { accounts: accounts.rowCount as number, systemAccounts: systemAccounts.rowCount as number };
    },
  };
}
