import { performance } from 'node:perf_hooks';
import { call } from '../test/helpers/http';
import { provisionAccounts, rssMiB, sleep, type BenchContext } from './context';
import { runLoad } from './load';
import { cpuByRole, cpuShare, formatShare } from './cpu';
import { fixed, writeResult, type Row } from './report';

const ACCOUNTS = 50;
const EVENTS = 60_000;
const BATCH = 10_000;
const DRAIN_TIMEOUT_MS = 20 * 60_000;

/** Payment credits on this benchmark's own accounts (other benchmarks seed entries for the same tenant). */
async function count(ctx: BenchContext, accountIds: string[], status?: string): Promise<number> {
  const query = ctx.db('ledger_entries').whereIn('account_id', accountIds).where({ kind: 'payment' });
  if (status) query.where({ status });
  const row = await query.count<{ count: string }[]>('* as count').first();
  return Number(row?.count ?? 0);
}

async function unstartedWorkflows(ctx: BenchContext): Promise<number> {
  const row = await ctx.db('workflow_outbox').whereNull('started_at').count<{ count: string }[]>('* as count').first();
  return Number(row?.count ?? 0);
}

/**
 * Unique signed payment webhooks, made and recorded by the sandbox beforehand (so the provider knows
 * every transaction and each confirmation succeeds), replayed at concurrency 32 for 30 s.
 */
export async function ingestBenchmark(ctx: BenchContext): Promise<Row[]> {
  const accounts = await provisionAccounts(ctx, ACCOUNTS);
  const events: Array<{ body: string; headers: Record<string, string> }> = [];
  for (let made = 0; made < EVENTS; made += BATCH) {
    const batch = await call(ctx.sys.sandboxUrl, 'POST', '/sandbox/payments/batch', { body: { accountRefs: accounts.map((account) => account.AccountRef), count: BATCH, amount: 1010 } });
    events.push(...(batch.body.events as typeof events));
  }
  let next = 0;
  const cpuBefore = cpuByRole();
  const load = await runLoad(ctx.sys.apiUrl, {
    connections: 32,
    durationS: 30,
    next: () => {
      const event = events[next++ % events.length]!;
      return { method: 'POST', path: '/webhooks/provider', body: event.body, headers: { 'Content-Type': 'application/json', ...event.headers } };
    },
  });
  const loadEnded = performance.now();
  const cpu = cpuShare(cpuBefore, cpuByRole(), load.durationS);
  const accountIds = accounts.map((account) => account.ID);
  const credited = await count(ctx, accountIds);
  const unstartedAtEnd = await unstartedWorkflows(ctx);
  const apiRss = rssMiB(ctx, 'api');

  let provisional = await count(ctx, accountIds, 'provisional');
  while (provisional > 0 && performance.now() - loadEnded < DRAIN_TIMEOUT_MS) {
    await sleep(2_000);
    provisional = await count(ctx, accountIds, 'provisional');
    process.stderr.write(`[bench] ingest: ${provisional} credits still waiting for confirmation, ${await unstartedWorkflows(ctx)} workflows not yet started\n`);
  }
  const drainS = (performance.now() - loadEnded) / 1000;
  const uniqueRps = credited / load.durationS;
  writeResult('ingest', { load, credited, uniqueRps, unstartedAtEnd, drainS, drained: provisional === 0, apiRssMiB: apiRss, cpuDuringLoad: cpu });
  return [
    { benchmark: 'ingest', measure: 'unique payment webhooks credited / s (concurrency 32, 30 s)', value: fixed(uniqueRps, 0), target: '>= 1,000/s', meets: uniqueRps >= 1000 },
    { benchmark: 'ingest', measure: 'webhook latency p50 / p99 ms', value: `${fixed(load.p50Ms)} / ${fixed(load.p99Ms)}`, target: 'p99 <= 100 ms', meets: load.p99Ms <= 100 },
    { benchmark: 'ingest', measure: 'non-2xx / errors', value: `${load.non2xx} / ${load.errors}`, target: '0 / 0', meets: load.non2xx === 0 && load.errors === 0 },
    { benchmark: 'ingest', measure: 'workflow starts left to the sweep at end of load', value: String(unstartedAtEnd), target: '-', meets: null },
    {
      benchmark: 'ingest',
      measure: `time until all ${credited} confirmations finished, s`,
      value: provisional === 0 ? fixed(drainS, 0) : `not drained in ${fixed(drainS, 0)}`,
      target: 'drains',
      meets: provisional === 0,
    },
    { benchmark: 'ingest', measure: 'CPU during the load (% of one core; 2 cores in all)', value: formatShare(cpu), target: '-', meets: null },
    { benchmark: 'ingest', measure: 'API resident memory after the load, MiB', value: apiRss === null ? '?' : fixed(apiRss, 0), target: '-', meets: null },
  ];
}
