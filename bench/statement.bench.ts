import { performance } from 'node:perf_hooks';
import { provisionAccounts, type BenchContext } from './context';
import { bigStatementAccount, seed } from './statement-account';
import { runLoad, type LoadResult } from './load';
import { fixed, writeResult, type Row } from './report';

const SMALL = 1_000;

async function middleCursor(ctx: BenchContext, account: { ID: string }, n: number): Promise<string> {
  const row = await ctx
    .db('ledger_entries')
    .where({ account_id: account.ID, seq: Math.floor(n / 2) })
    .first('id');
  return row.id as string;
}

/**
 * Latency is a property of one request, so it is measured one request at a time (queueing behind other
 * requests on a shared 2-core machine would measure the machine, not the query), after a warm-up.
 */
async function pageLatency(ctx: BenchContext, accountRef: string, cursor: string | null, period = ''): Promise<LoadResult> {
  const query = [cursor ? `after=${cursor}` : '', period].filter(Boolean).join('&');
  const path = `/v1/accounts/${accountRef}/statement${query ? `?${query}` : ''}`;
  const next = () => ({ method: 'GET' as const, path, headers: { 'X-API-Key': ctx.apiKey } });
  await runLoad(ctx.sys.apiUrl, { connections: 1, durationS: 2, next });
  return runLoad(ctx.sys.apiUrl, { connections: 1, durationS: 10, next });
}

/**
 * The Africa/Lagos month of the account's middle entry as a statement's period (from, to), and the partitions the
 * page's query of that period reads (its plan): one month's, since the history is partitioned by month.
 */
async function middleMonth(ctx: BenchContext, account: { ID: string }, n: number): Promise<{ period: string; partitions: string[] }> {
  const { rows } = await ctx.db.raw(
    `SELECT m AT TIME ZONE 'Africa/Lagos' AS starts, (m + interval '1 month') AT TIME ZONE 'Africa/Lagos' AS ends
       FROM (SELECT date_trunc('month', created_at AT TIME ZONE 'Africa/Lagos') AS m FROM ledger_entries
              WHERE account_id = ? AND seq = ?) e`,
    [account.ID, Math.max(1, Math.floor(n / 2))],
  );
  const { starts, ends } = rows[0] as { starts: Date; ends: Date };
  const plan = await ctx.db.raw(
    `EXPLAIN (FORMAT JSON) SELECT * FROM ledger_entries
      WHERE account_id = ? AND seq > 0 AND seq <= ? AND created_at >= ? AND created_at < ? ORDER BY seq LIMIT 51`,
    [account.ID, n, starts, ends],
  );
  const partitions = [...JSON.stringify(plan.rows[0]['QUERY PLAN']).matchAll(/"Relation Name":"([^"]+)"/g)].map((match) => match[1]!);
  return { period: `from=${encodeURIComponent(starts.toISOString())}&to=${encodeURIComponent(ends.toISOString())}`, partitions };
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
  const LARGE = ctx.options.entries;
  const big = LARGE >= 1_000_000 ? `${LARGE / 1_000_000}M` : `${LARGE / 1_000}k`;
  const [small] = await provisionAccounts(ctx, 1);
  const seedStarted = performance.now();
  await seed(ctx, small!, SMALL);
  const large = await bigStatementAccount(ctx);
  const seedS = (performance.now() - seedStarted) / 1000;
  const cases = {
    first1k: await pageLatency(ctx, small!.AccountRef, null),
    middle1k: await pageLatency(ctx, small!.AccountRef, await middleCursor(ctx, small!, SMALL)),
    first1m: await pageLatency(ctx, large!.AccountRef, null),
    middle1m: await pageLatency(ctx, large!.AccountRef, await middleCursor(ctx, large!, LARGE)),
  };
  const month = await middleMonth(ctx, large!, LARGE);
  const monthPage = await pageLatency(ctx, large!.AccountRef, null, month.period);
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
  const storedMs = await medianMs(9, () =>
    ctx.db('virtual_accounts').where({ id: large!.ID }).first('total_credits', 'total_debits', 'ledger_balance'),
  );

  writeResult('statement', {
    seedS,
    entries: { small: SMALL, large: LARGE, months: ctx.options.historyMonths },
    cases: { ...cases, monthPage },
    monthPagePartitions: month.partitions,
    ratioFirst,
    ratioMiddle,
  });
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
    row(`first page, ${big} entries`, cases.first1m, 'p99 <= 15 ms', cases.first1m.p99Ms <= 15),
    row(`middle page, ${big} entries`, cases.middle1m, 'p99 <= 15 ms', cases.middle1m.p99Ms <= 15),
    row(
      `a month's first page, ${big} entries over ${ctx.options.historyMonths} month(s), reading ${month.partitions.join(', ')}`,
      monthPage,
      'p99 <= 15 ms, one partition',
      monthPage.p99Ms <= 15 && month.partitions.length === 1,
    ),
    {
      benchmark: 'statement',
      measure: `p99 ratio ${big} / 1k, first page`,
      value: fixed(ratioFirst, 2),
      target: '<= 1.3',
      meets: ratioFirst <= 1.3,
    },
    {
      benchmark: 'statement',
      measure: `p99 ratio ${big} / 1k, middle page`,
      value: fixed(ratioMiddle, 2),
      target: '<= 1.3',
      meets: ratioMiddle <= 1.3,
    },
    {
      benchmark: 'baseline',
      measure: `aggregates of ${big} entries: SUM over history / stored totals, ms`,
      value: `${fixed(sumMs, 2)} / ${fixed(storedMs, 2)} (x${fixed(sumMs / storedMs, 0)})`,
      target: 'ratio printed',
      meets: null,
    },
  ];
}
