import { performance } from 'node:perf_hooks';
import { provisionAccounts, type BenchContext } from './context';
import { runLoad, type LoadResult } from './load';
import { fixed, writeResult, type Row } from './report';

/** The accounts the entries are spread over. */
const ACCOUNTS = 200;
/** The span of time the entries cover, ending now. */
const HISTORY_DAYS = 90;

/**
 * Seeds `perAccount` confirmed entries on each account in one SQL statement, as the posting engine writes them: seq
 * and the to-date columns in order (three credits of 100.00, then a debit of 50.00, repeating), each entry balanced by
 * its counter postings, spread evenly over the last HISTORY_DAYS days; then the accounts' totals.
 */
async function seed(ctx: BenchContext, accountIds: string[], perAccount: number): Promise<void> {
  await ctx.db.raw(
    `INSERT INTO ledger_entries (id, tenant_id, account_id, seq, direction, kind, amount, fee, currency, status, narration,
                                 provider_txn_ref, transaction_group_id, transaction_id, balance_after, credits_to_date, debits_to_date,
                                 created_at, clearing_amount, provider_fees_amount, payouts_in_transit_amount)
     SELECT gen_random_uuid(), :tenant, a.id, g,
            CASE WHEN g % 4 = 0 THEN 'debit' ELSE 'credit' END,
            CASE WHEN g % 4 = 0 THEN 'settlement' ELSE 'payment' END,
            CASE WHEN g % 4 = 0 THEN 5000 ELSE 10000 END, 0, 'NGN', 'confirmed', 'seeded',
            CASE WHEN g % 4 = 0 THEN NULL ELSE a.id || '-' || g END,
            gen_random_uuid(), gen_random_uuid(),
            (g - g / 4) * 10000 - (g / 4) * 5000, (g - g / 4) * 10000, (g / 4) * 5000,
            now() - make_interval(days => :days) + g * (make_interval(days => :days) / :n),
            CASE WHEN g % 4 = 0 THEN 0 ELSE -10000 END, 0, CASE WHEN g % 4 = 0 THEN 5000 ELSE 0 END
       FROM unnest(CAST(:accounts AS uuid[])) AS a(id)
      CROSS JOIN generate_series(1, :n::bigint) AS g`,
    { tenant: ctx.tenantId, accounts: accountIds, n: perAccount, days: HISTORY_DAYS },
  );
  const credits = (BigInt(perAccount) - BigInt(perAccount) / 4n) * 10000n;
  const debits = (BigInt(perAccount) / 4n) * 5000n;
  await ctx
    .db('virtual_accounts')
    .whereIn('id', accountIds)
    .update({ total_credits: credits, total_debits: debits, ledger_balance: credits - debits, last_seq: perAccount });
  // What autovacuum would do after a bulk load, done now so that it does not run during the measurements.
  await ctx.db.raw('VACUUM (ANALYZE) ledger_entries');
}

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** A YYYY-MM-DD day `daysAgo` days before today (UTC; the Lagos day is the same or the next). */
const dayBefore = (daysAgo: number): string => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

/**
 * Latency one request at a time (queueing on a shared 2-core machine would measure the machine), after a warm-up;
 * each request a random account, and a random instant or range within the seeded history.
 */
async function latency(ctx: BenchContext, path: () => string): Promise<LoadResult> {
  const next = () => ({ method: 'GET' as const, path: path(), headers: { 'X-API-Key': ctx.apiKey } });
  await runLoad(ctx.sys.apiUrl, { connections: 1, durationS: 2, next });
  return runLoad(ctx.sys.apiUrl, { connections: 1, durationS: 10, next });
}

export async function balanceAtBenchmark(ctx: BenchContext): Promise<Row[]> {
  const entries = ctx.options.entries;
  const size = entries >= 1_000_000 ? `${entries / 1_000_000}M` : `${entries / 1_000}k`;
  const perAccount = Math.max(1, Math.floor(entries / ACCOUNTS));
  const accounts = await provisionAccounts(ctx, ACCOUNTS);
  const seedStarted = performance.now();
  await seed(
    ctx,
    accounts.map((account) => account.ID),
    perAccount,
  );
  const seedS = (performance.now() - seedStarted) / 1000;
  const historyMs = HISTORY_DAYS * 86_400_000;

  // How Postgres finds an account's last entry at or before an instant (the probe every figure below repeats).
  const plan = (
    (await ctx.db.raw(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT)
       SELECT balance_after, credits_to_date, debits_to_date FROM ledger_entries
        WHERE account_id = ? AND created_at < now() - interval '30 days' ORDER BY created_at DESC, seq DESC LIMIT 1`,
      [accounts[0]!.ID],
    )) as { rows: Array<{ 'QUERY PLAN': string }> }
  ).rows.map((line) => line['QUERY PLAN']);
  const indexOnly = plan.some((line) => line.includes('Index Only Scan Backward using ledger_entries_account_time_idx'));

  const cases = {
    balanceNow: await latency(ctx, () => `/v1/accounts/${pick(accounts).AccountRef}/balance`),
    balanceAt: await latency(ctx, () => {
      const at = new Date(Date.now() - Math.random() * historyMs).toISOString();
      return `/v1/accounts/${pick(accounts).AccountRef}/balance?at=${encodeURIComponent(at)}`;
    }),
    month: await latency(ctx, () => {
      const from = 31 + Math.floor(Math.random() * (HISTORY_DAYS - 31));
      return `/v1/accounts/${pick(accounts).AccountRef}/daily-balances?from=${dayBefore(from)}&to=${dayBefore(from - 30)}`;
    }),
    year: await latency(ctx, () => `/v1/accounts/${pick(accounts).AccountRef}/daily-balances?from=${dayBefore(366)}&to=${dayBefore(1)}`),
  };
  writeResult('balance-at', { seedS, entries: ACCOUNTS * perAccount, accounts: ACCOUNTS, historyDays: HISTORY_DAYS, plan, cases });

  const row = (measure: string, result: LoadResult, target: string, meets: boolean | null): Row => ({
    benchmark: 'balance-at',
    measure: `${measure} p50 / p99 ms, one at a time (${fixed(result.rps, 0)} req/s${result.non2xx + result.errors > 0 ? `, ${result.non2xx + result.errors} failed` : ''})`,
    value: `${fixed(result.p50Ms, 2)} / ${fixed(result.p99Ms, 2)}`,
    target,
    meets,
  });
  return [
    {
      benchmark: 'balance-at',
      measure: `seeded ${size} entries over ${ACCOUNTS} accounts and ${HISTORY_DAYS} days, s`,
      value: fixed(seedS, 1),
      target: '-',
      meets: null,
    },
    {
      benchmark: 'balance-at',
      measure: "an account's last entry at or before an instant: one index-only probe of ledger_entries_account_time_idx",
      value: indexOnly ? 'yes' : `no: ${plan[0]}`,
      target: 'yes',
      meets: indexOnly,
    },
    row(`balance now (for comparison), ${size} entries`, cases.balanceNow, '-', null),
    row(`balance?at= a random instant, ${size} entries`, cases.balanceAt, 'p99 <= 15 ms', cases.balanceAt.p99Ms <= 15),
    row(`daily-balances, 31 days, ${size} entries`, cases.month, 'p99 <= 25 ms', cases.month.p99Ms <= 25),
    row(`daily-balances, 366 days, ${size} entries`, cases.year, '-', null),
  ];
}
