import { performance } from 'node:perf_hooks';
import { provisionAccounts, type BenchContext } from './context';
import { runLoad, type LoadResult } from './load';
import { fixed, writeResult, type Row } from './report';

const SMALL = 1_000;
const LARGE = 1_000_000;

/**
 * Seeds `n` confirmed entries in one SQL statement, computing seq and the to-date columns exactly as
 * the posting engine would (three credits of 100.00, then a debit of 50.00, repeating).
 */
async function seed(ctx: BenchContext, account: { ID: string }, n: number): Promise<void> {
  await ctx.db.raw(
    `INSERT INTO ledger_entries (id, tenant_id, account_id, seq, direction, kind, amount, fee, currency, status, narration,
                                 provider_txn_ref, transaction_group_id, balance_after, credits_to_date, debits_to_date, created_at)
     SELECT gen_random_uuid(), :tenant, :account, g,
            CASE WHEN g % 4 = 0 THEN 'debit' ELSE 'credit' END,
            CASE WHEN g % 4 = 0 THEN 'settlement' ELSE 'payment' END,
            CASE WHEN g % 4 = 0 THEN 5000 ELSE 10000 END, 0, 'NGN', 'confirmed', 'seeded',
            CASE WHEN g % 4 = 0 THEN NULL ELSE :account || '-' || g END,
            gen_random_uuid(),
            (g - g / 4) * 10000 - (g / 4) * 5000, (g - g / 4) * 10000, (g / 4) * 5000,
            now() - interval '1 day' + g * interval '1 millisecond'
       FROM generate_series(1, :n::bigint) AS g`,
    { tenant: ctx.tenantId, account: account.ID, n },
  );
  const credits = (BigInt(n) - BigInt(n) / 4n) * 10000n;
  const debits = (BigInt(n) / 4n) * 5000n;
  await ctx.db('virtual_accounts').where({ id: account.ID }).update({ total_credits: credits, total_debits: debits, ledger_balance: credits - debits, last_seq: n });
}

async function middleCursor(ctx: BenchContext, account: { ID: string }, n: number): Promise<string> {
  const row = await ctx.db('ledger_entries').where({ account_id: account.ID, seq: Math.floor(n / 2) }).first('id');
  return row.id as string;
}

/**
 * Latency is a property of one request, so it is measured one request at a time (queueing behind other
 * requests on a shared 2-core machine would measure the machine, not the query), after a warm-up.
 */
async function pageLatency(ctx: BenchContext, accountRef: string, cursor: string | null): Promise<LoadResult> {
  const path = `/v1/accounts/${accountRef}/statement${cursor ? `?after=${cursor}` : ''}`;
  const next = () => ({ method: 'GET' as const, path, headers: { 'X-API-Key': ctx.apiKey } });
  await runLoad(ctx.sys.apiUrl, { connections: 1, durationS: 2, next });
  return runLoad(ctx.sys.apiUrl, { connections: 1, durationS: 10, next });
}

async function medianMs(times: number, work: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
}

export async function statementBenchmark(ctx: BenchContext): Promise<Row[]> {
  const [small, large] = await provisionAccounts(ctx, 2);
  const seedStarted = performance.now();
  await seed(ctx, small!, SMALL);
  await seed(ctx, large!, LARGE);
  // What autovacuum would do after a bulk load, done now so that it does not run during the benchmarks that follow.
  await ctx.db.raw('VACUUM (ANALYZE) ledger_entries');
  const seedS = (performance.now() - seedStarted) / 1000;
  const cases = {
    first1k: await pageLatency(ctx, small!.AccountRef, null),
    middle1k: await pageLatency(ctx, small!.AccountRef, await middleCursor(ctx, small!, SMALL)),
    first1m: await pageLatency(ctx, large!.AccountRef, null),
    middle1m: await pageLatency(ctx, large!.AccountRef, await middleCursor(ctx, large!, LARGE)),
  };
  const ratioFirst = cases.first1m.p99Ms / cases.first1k.p99Ms;
  const ratioMiddle = cases.middle1m.p99Ms / cases.middle1k.p99Ms;

  // Baseline: what the aggregates would cost as a SUM over the history, against the stored totals.
  const sumMs = await medianMs(9, () =>
    ctx.db.raw(
      `SELECT coalesce(sum(amount) FILTER (WHERE direction = 'credit'), 0) AS credits, coalesce(sum(amount) FILTER (WHERE direction = 'debit'), 0) AS debits
         FROM ledger_entries WHERE account_id = ?`,
      [large!.ID],
    ),
  );
  const storedMs = await medianMs(9, () => ctx.db('virtual_accounts').where({ id: large!.ID }).first('total_credits', 'total_debits', 'ledger_balance'));

  writeResult('statement', { seedS, entries: { small: SMALL, large: LARGE }, cases, ratioFirst, ratioMiddle });
  writeResult('baseline', { account_entries: LARGE, sumOverHistoryMs: sumMs, storedTotalsMs: storedMs, ratio: sumMs / storedMs });
  const row = (measure: string, result: LoadResult, target: string, meets: boolean | null): Row => ({
    benchmark: 'statement',
    measure: `${measure} p50 / p99 ms, one at a time (${fixed(result.rps, 0)} req/s)`,
    value: `${fixed(result.p50Ms, 2)} / ${fixed(result.p99Ms, 2)}`,
    target,
    meets,
  });
  return [
    row('first page, 1k entries', cases.first1k, '-', null),
    row('middle page, 1k entries', cases.middle1k, '-', null),
    row('first page, 1M entries', cases.first1m, 'p99 <= 15 ms', cases.first1m.p99Ms <= 15),
    row('middle page, 1M entries', cases.middle1m, 'p99 <= 15 ms', cases.middle1m.p99Ms <= 15),
    { benchmark: 'statement', measure: 'p99 ratio 1M / 1k, first page', value: fixed(ratioFirst, 2), target: '<= 1.3', meets: ratioFirst <= 1.3 },
    { benchmark: 'statement', measure: 'p99 ratio 1M / 1k, middle page', value: fixed(ratioMiddle, 2), target: '<= 1.3', meets: ratioMiddle <= 1.3 },
    { benchmark: 'baseline', measure: 'aggregates of 1M entries: SUM over history / stored totals, ms', value: `${fixed(sumMs, 2)} / ${fixed(storedMs, 2)} (x${fixed(sumMs / storedMs, 0)})`, target: 'ratio printed', meets: null },
  ];
}
