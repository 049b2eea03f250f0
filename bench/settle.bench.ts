import { fund, provisionAccounts, type BenchContext } from './context';
import { runLoad, type LoadResult } from './load';
import { cpuByRole, cpuShare, formatShare } from './cpu';
import { fixed, writeResult, type Row } from './report';

const BODY = JSON.stringify({ amount: '1.00', bankCode: '058', accountNumber: '0123456789' });

async function settleLoad(ctx: BenchContext, accountRefs: string[]): Promise<LoadResult> {
  let next = 0;
  return runLoad(ctx.sys.apiUrl, {
    connections: 32,
    durationS: 15,
    next: () => ({
      method: 'POST',
      path: `/v1/accounts/${accountRefs[next++ % accountRefs.length]}/settle`,
      body: BODY,
      headers: { 'Content-Type': 'application/json', 'X-API-Key': ctx.apiKey },
    }),
  });
}

/**
 * Accepted settlements per second: the API's transaction (balance check, debit, settlement row,
 * outbox) and the workflow start. The worker is stopped first so paying out does not compete for the
 * same two cores; the payouts themselves are the worker's, measured by the ingest drain.
 */
export async function settleBenchmark(ctx: BenchContext): Promise<Row[]> {
  await ctx.sys.kill('worker');
  const accounts = await provisionAccounts(ctx, 101);
  for (const account of accounts) await fund(ctx, account.ID, 100_000_000_00n);
  const cpuBefore = cpuByRole();
  const spread = await settleLoad(
    ctx,
    accounts.slice(0, 100).map((account) => account.AccountRef),
  );
  const cpu = cpuShare(cpuBefore, cpuByRole(), spread.durationS);
  const hot = await settleLoad(ctx, [accounts[100]!.AccountRef]);
  writeResult('settle', { acrossAccounts: spread, hotAccount: hot, cpuDuringLoad: cpu });
  return [
    {
      benchmark: 'settle',
      measure: 'accepted settles / s across 100 accounts (concurrency 32)',
      value: fixed(spread.rps, 0),
      target: '>= 500/s',
      meets: spread.rps >= 500,
    },
    {
      benchmark: 'settle',
      measure: 'latency p50 / p99 ms across accounts',
      value: `${fixed(spread.p50Ms)} / ${fixed(spread.p99Ms)}`,
      target: '-',
      meets: null,
    },
    {
      benchmark: 'settle',
      measure: 'CPU across accounts (% of one core; 2 cores in all)',
      value: formatShare(cpu),
      target: '-',
      meets: null,
    },
    { benchmark: 'settle', measure: 'accepted settles / s on one hot account', value: fixed(hot.rps, 0), target: '-', meets: null },
    {
      benchmark: 'settle',
      measure: 'latency p50 / p99 ms on the hot account',
      value: `${fixed(hot.p50Ms)} / ${fixed(hot.p99Ms)}`,
      target: '-',
      meets: null,
    },
    {
      benchmark: 'settle',
      measure: 'non-2xx / errors (both runs)',
      value: `${spread.non2xx + hot.non2xx} / ${spread.errors + hot.errors}`,
      target: '0 / 0',
      meets: spread.non2xx + hot.non2xx === 0 && spread.errors + hot.errors === 0,
    },
  ];
}
