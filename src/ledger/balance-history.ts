import { runPrepared, type DbOrTrx } from '../db';
import { BadRequestError } from '../errors';
import { koboFromDb, type Kobo } from '../money';

/**
 * An account's balance at a past instant, read from the running columns each entry stores (balance_after,
 * credits_to_date, debits_to_date): the last entry of the account at or before the instant is one probe of the index
 * on (account_id, created_at, seq), which carries those columns, so the answer costs the same at ten entries or ten
 * million. A reversal is its own entry, counted from when it was posted; the entry it reverses keeps its running
 * balance.
 *
 * An instant is taken to the millisecond, the precision of every time the API shows: an entry counts when its time,
 * as the statement shows it, is at or before the instant, so the balance at a statement line's CreatedAt is that
 * line's running balance (and that of any later line of the same millisecond).
 */

/** The account's running totals after its last entry at or before an instant; zero before its first entry. */
export interface BalanceAt {
  ledgerBalance: Kobo;
  /** Everything credited to the account up to the instant (reversals of debits included). */
  creditsToDate: Kobo;
  /** Everything debited from the account up to the instant (reversals of credits included). */
  debitsToDate: Kobo;
}

/**
 * The running columns after the last entry of account `account` (an expression) posted strictly before `before` (an
 * expression), as a LATERAL subquery: an attached entry's, or, when none is, what the account's archived entries left
 * behind (see docs/scaling.md#archived-months), with `archived_at` set to its last archived entry's time when that is
 * not before `before` (the instant lies among archived entries, whose running columns are no longer read).
 */
const lastEntryBefore = (account: string, before: string): string =>
  `(SELECT balance_after, credits_to_date, debits_to_date, archived_at FROM (
      (SELECT 1 AS source, balance_after, credits_to_date, debits_to_date, NULL::timestamptz AS archived_at FROM ledger_entries
        WHERE account_id = ${account} AND created_at < ${before}
        ORDER BY created_at DESC, seq DESC LIMIT 1)
      UNION ALL
      SELECT 2, balance_after, credits_to_date, debits_to_date, CASE WHEN last_created_at >= ${before} THEN last_created_at END
        FROM ledger_archived_accounts WHERE account_id = ${account}
    ) running ORDER BY source LIMIT 1)`;

/** Refuses an instant among an account's archived entries: 400 period_archived, naming its last archived entry's time. */
function refuseArchived(rows: Array<{ archived_at: Date | null }>): void {
  const archived = rows.find((row) => row.archived_at !== null)?.archived_at;
  if (archived) {
    throw new BadRequestError(
      'period_archived',
      `the account's entries up to ${archived.toISOString()} are archived: ask for a time after that`,
      { archivedThrough: archived.toISOString() },
    );
  }
}

/** The exclusive end of the millisecond of `at`: entries shown at or before `at` are before it. */
export const endOfMillisecond = (at: Date): Date => new Date(at.getTime() + 1);

/** Each account's balance at `at` (accounts without an entry by then at zero), in one statement. */
export async function balancesAt(db: DbOrTrx, accountIds: string[], at: Date): Promise<Map<string, BalanceAt>> {
  if (accountIds.length === 0) return new Map();
  const { rows } = (await runPrepared(
    db,
    'balances-at',
    `SELECT a.id, e.balance_after, e.credits_to_date, e.debits_to_date, e.archived_at
       FROM unnest(CAST(:ids AS uuid[])) AS a(id)
       LEFT JOIN LATERAL ${lastEntryBefore('a.id', 'CAST(:before AS timestamptz)')} e ON true`,
    { ids: accountIds, before: endOfMillisecond(at) },
  )) as {
    rows: Array<{
      id: string;
      balance_after: string | null;
      credits_to_date: string | null;
      debits_to_date: string | null;
      archived_at: Date | null;
    }>;
  };
  refuseArchived(rows);
  return new Map(
    rows.map((row) => [
      row.id,
      {
        ledgerBalance: koboFromDb(row.balance_after ?? 0),
        creditsToDate: koboFromDb(row.credits_to_date ?? 0),
        debitsToDate: koboFromDb(row.debits_to_date ?? 0),
      },
    ]),
  );
}

/** One day of an account in a time zone: its balance at the day's start and end, and what moved between. */
export interface DailyBalance {
  /** YYYY-MM-DD. */
  day: string;
  opening: Kobo;
  credits: Kobo;
  debits: Kobo;
  closing: Kobo;
}

/**
 * The account's days `fromDay` to `toDay` (YYYY-MM-DD, inclusive) in time zone `zone`, every day listed, a day
 * without entries opening and closing at the same balance. Each day's boundary is one index probe (a day ends where
 * the next begins), so a year costs 367 probes whatever the account's size. Days end at the zone's midnight: an
 * entry at 23:30 UTC is in the next Africa/Lagos day.
 */
export async function dailyBalancesOf(
  db: DbOrTrx,
  accountId: string,
  fromDay: string,
  toDay: string,
  zone: string,
): Promise<DailyBalance[]> {
  const { rows } = (await runPrepared(
    db,
    'daily-balances',
    `WITH bounds AS (
       SELECT d::date AS day, (d::timestamp AT TIME ZONE :zone) AS starts
         FROM generate_series(CAST(:fromDay AS date), CAST(:toDay AS date) + 1, interval '1 day') AS d
     ), balances AS (
       SELECT b.day, coalesce(e.balance_after, 0) AS balance, coalesce(e.credits_to_date, 0) AS credits,
              coalesce(e.debits_to_date, 0) AS debits, e.archived_at
         FROM bounds b LEFT JOIN LATERAL ${lastEntryBefore('CAST(:accountId AS uuid)', 'b.starts')} e ON true
     )
     SELECT to_char(day, 'YYYY-MM-DD') AS day, opening, credits, debits, closing, archived_at FROM (
       SELECT day, balance AS opening, archived_at,
              lead(credits) OVER (ORDER BY day) - credits AS credits,
              lead(debits) OVER (ORDER BY day) - debits AS debits,
              lead(balance) OVER (ORDER BY day) AS closing
         FROM balances
     ) days
     WHERE closing IS NOT NULL
     ORDER BY day`,
    { accountId, fromDay, toDay, zone },
  )) as { rows: Array<{ day: string; opening: string; credits: string; debits: string; closing: string; archived_at: Date | null }> };
  refuseArchived(rows);
  return rows.map((row) => ({
    day: row.day,
    opening: koboFromDb(row.opening),
    credits: koboFromDb(row.credits),
    debits: koboFromDb(row.debits),
    closing: koboFromDb(row.closing),
  }));
}
