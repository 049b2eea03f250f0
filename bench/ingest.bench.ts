import { performance } from 'node:perf_hooks';
import { call } from '../test/helpers/http';
import { provisionAccounts, rssMiB, sleep, type BenchContext } from './context';
import { runLoad, type LoadResult } from './load';
import { cpuByRole, cpuSecondsBetween, cpuShare, formatShare } from './cpu';
import { ensureWorker } from './pipeline';
import { lagRows, replicaLagSampler, type LagSamples, type ReplicaLagSampler } from './replica-lag';
import { fixed, writeResult, type Row } from './report';

const ACCOUNTS = 100;
const BATCH = 10_000;
/** Events made beforehand per second of load: above what the service could take (unique events only count). */
const EVENTS_PER_LOAD_SECOND = 3_000;
const DRAIN_TIMEOUT_MS = 30 * 60_000;

type SignedEvent = { body: string; headers: Record<string, string> };
type Account = { ID: string; AccountRef: string };

interface IngestRun {
  load: LoadResult;
  credited: number;
  /** The credits each cluster took (its tenant's accounts): which clusters served the load. */
  creditedByCluster: Record<string, number>;
  uniqueRps: number;
  cpuDuringLoad: Record<string, number>;
  /** With a replica attached (--replica): its lag sampled through the load. */
  replicaLag: LagSamples | null;
}

/** Payment credits on this benchmark's own accounts (other benchmarks seed entries for the same tenant), by cluster. */
async function countByCluster(ctx: BenchContext, accountIds: string[], status?: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const cluster of ctx.clusters) {
    const query = cluster.db('ledger_entries').whereIn('account_id', accountIds).where({ kind: 'payment' });
    if (status) query.where({ status });
    const row = await query.count<{ count: string }[]>('* as count').first();
    counts[cluster.name] = Number(row?.count ?? 0);
  }
  return counts;
}

const sum = (counts: Record<string, number>): number => Object.values(counts).reduce((total, value) => total + value, 0);

async function count(ctx: BenchContext, accountIds: string[], status?: string): Promise<number> {
  return sum(await countByCluster(ctx, accountIds, status));
}

async function unstartedWorkflows(ctx: BenchContext): Promise<number> {
  let unstarted = 0;
  for (const { db } of ctx.clusters) {
    const row = await db('workflow_outbox').whereNull('started_at').count<{ count: string }[]>('* as count').first();
    unstarted += Number(row?.count ?? 0);
  }
  return unstarted;
}

/** Credits in the batch confirmation queues of every cluster: waiting for a batch, and held by open batches. */
async function confirmationQueue(ctx: BenchContext): Promise<{ queued: number; claimed: number }> {
  const queue = { queued: 0, claimed: 0 };
  for (const { db } of ctx.clusters) {
    const row = await db('confirmation_claims').first(
      db.raw('count(*) FILTER (WHERE batch_id IS NULL) AS queued'),
      db.raw('count(*) FILTER (WHERE batch_id IS NOT NULL) AS claimed'),
    );
    queue.queued += Number(row?.queued ?? 0);
    queue.claimed += Number(row?.claimed ?? 0);
  }
  return queue;
}

/** Replays the next unsent events at concurrency 32 for `--load-seconds` (20 s). */
async function replay(
  ctx: BenchContext,
  events: SignedEvent[],
  cursor: { next: number },
  accountIds: string[],
  replica: ReplicaLagSampler | null,
): Promise<IngestRun> {
  const creditedBefore = await countByCluster(ctx, accountIds);
  const cpuBefore = cpuByRole();
  const sampling = replica?.start();
  const load = await runLoad(ctx.sys.apiUrl, {
    connections: 32,
    durationS: ctx.options.loadSeconds,
    next: () => {
      // Past the prepared events a replay is a duplicate: answered, not credited, so not counted.
      const event = events[cursor.next++ % events.length]!;
      return {
        method: 'POST',
        path: '/webhooks/provider',
        body: event.body,
        headers: { 'Content-Type': 'application/json', ...event.headers },
      };
    },
  });
  const cpuDuringLoad = cpuShare(cpuBefore, cpuByRole(), load.durationS);
  const replicaLag = (await sampling?.stop()) ?? null;
  const creditedAfter = await countByCluster(ctx, accountIds);
  const creditedByCluster = Object.fromEntries(
    Object.entries(creditedAfter).map(([cluster, credits]) => [cluster, credits - creditedBefore[cluster]!]),
  );
  const credited = sum(creditedByCluster);
  return { load, credited, creditedByCluster, uniqueRps: credited / load.durationS, cpuDuringLoad, replicaLag };
}

/**
 * Waits until no credit of these accounts is provisional. Returns the seconds it took (null on timeout)
 * and the CPU each part of the stack spent per confirmation meanwhile, in ms.
 */
async function drain(
  ctx: BenchContext,
  accountIds: string[],
  confirmations: number,
): Promise<{ seconds: number | null; cpuMsPerConfirmation: Record<string, number> }> {
  const started = performance.now();
  const cpuBefore = cpuByRole();
  for (;;) {
    const provisional = await count(ctx, accountIds, 'provisional');
    const elapsedS = (performance.now() - started) / 1000;
    if (provisional === 0 || elapsedS * 1000 > DRAIN_TIMEOUT_MS) {
      const used = cpuSecondsBetween(cpuBefore, cpuByRole());
      const cpuMsPerConfirmation = Object.fromEntries(
        Object.entries(used).map(([role, seconds]) => [role, (seconds * 1000) / confirmations]),
      );
      return { seconds: provisional === 0 ? elapsedS : null, cpuMsPerConfirmation };
    }
    const queue = await confirmationQueue(ctx);
    process.stderr.write(
      `[bench] ingest: ${provisional} credits still waiting for confirmation (${queue.queued} queued for a batch, ${queue.claimed} in batches), ${await unstartedWorkflows(ctx)} workflows not yet started\n`,
    );
    await sleep(5_000);
  }
}

/** Issue 13's targets: across 100 accounts, and into one hot account. */
const TARGETS = {
  spread: { rate: 1500, p99Ms: 100 },
  hot: { rate: 800, p99Ms: 150 },
  none: null,
} as const;

function loadRows(label: string, run: IngestRun, seconds: number, targets: { rate: number; p99Ms: number } | null): Row[] {
  return [
    {
      benchmark: 'ingest',
      measure: `${label}: unique payment webhooks credited / s (concurrency 32, ${seconds} s)`,
      value: fixed(run.uniqueRps, 0),
      target: targets ? `>= ${targets.rate.toLocaleString('en')}/s` : '-',
      meets: targets ? run.uniqueRps >= targets.rate : null,
    },
    {
      benchmark: 'ingest',
      measure: `${label}: latency p50 / p99 ms`,
      value: `${fixed(run.load.p50Ms)} / ${fixed(run.load.p99Ms)}`,
      target: targets ? `p99 <= ${targets.p99Ms} ms` : '-',
      meets: targets ? run.load.p99Ms <= targets.p99Ms : null,
    },
    {
      benchmark: 'ingest',
      measure: `${label}: non-2xx / errors`,
      value: `${run.load.non2xx} / ${run.load.errors}`,
      target: '0 / 0',
      meets: run.load.non2xx === 0 && run.load.errors === 0,
    },
    {
      benchmark: 'ingest',
      measure: `${label}: CPU during the load (% of one core; 2 cores in all)`,
      value: formatShare(run.cpuDuringLoad),
      target: '-',
      meets: null,
    },
    {
      benchmark: 'ingest',
      measure: `${label}: credits by cluster`,
      value: Object.entries(run.creditedByCluster)
        .map(([cluster, credits]) => `${cluster} ${credits.toLocaleString('en')}`)
        .join(', '),
      target: '-',
      meets: null,
    },
    ...(run.replicaLag ? lagRows('ingest', label, run.replicaLag) : []),
  ];
}

async function signedEvents(ctx: BenchContext, accountRefs: string[], count: number): Promise<SignedEvent[]> {
  const events: SignedEvent[] = [];
  for (let made = 0; made < count; made += BATCH) {
    const batch = await call(ctx.sys.sandboxUrl, 'POST', '/sandbox/payments/batch', {
      body: { accountRefs, count: Math.min(BATCH, count - made), amount: 1010 },
    });
    events.push(...(batch.body.events as SignedEvent[]));
  }
  return events;
}

/** Where the load's accounts live: each cluster's tenant, how many of the 100 accounts it holds, and whether the hot one. */
interface Placement {
  cluster: string;
  server: string;
  tenantId: string;
  accounts: number;
  hotAccount: boolean;
}

/**
 * The 100 accounts split evenly over the tenants (one per cluster), in turns so that consecutive webhooks go to
 * different clusters, and the hot account, the first tenant's. One tenant: its 100 accounts and then the hot one.
 */
async function loadAccounts(ctx: BenchContext): Promise<{ spread: Account[]; hot: Account; placements: Placement[] }> {
  const share = ACCOUNTS / ctx.tenants.length;
  const owned: Account[][] = [];
  for (const [index, tenant] of ctx.tenants.entries())
    owned.push(await provisionAccounts(ctx, share + (index === 0 ? 1 : 0), tenant.apiKey));
  const hot = owned[0]!.pop()!;
  const spread = Array.from({ length: share }, (_, turn) => owned.map((accounts) => accounts[turn]!)).flat();
  const placements = ctx.tenants.map((tenant, index) => ({
    cluster: tenant.cluster,
    server: ctx.clusters.find((cluster) => cluster.name === tenant.cluster)!.server,
    tenantId: tenant.tenantId,
    accounts: share,
    hotAccount: index === 0,
  }));
  return { spread, hot, placements };
}

function placementRow(placements: Placement[]): Row {
  return {
    benchmark: 'ingest',
    measure: `clusters (${placements.length}) and the load's accounts on each`,
    value: placements
      .map(
        (placement) => `${placement.cluster} ${placement.server}: ${placement.accounts}${placement.hotAccount ? ' + the hot account' : ''}`,
      )
      .join('; '),
    target: '-',
    meets: null,
  };
}

/**
 * Unique signed payment webhooks, made and recorded by the sandbox beforehand (so the provider knows
 * every transaction and each confirmation succeeds), replayed three times: with the whole stack across
 * 100 accounts, the worker confirming on the same two cores, until every confirmation has finished;
 * with the whole stack into one hot account; then with the worker stopped (the API still starts
 * workflows at its configured rate), which shows the webhook path's own capacity, what it has when the
 * worker runs on machines of its own. With --clusters 2 the 100 accounts are half on each cluster (a tenant
 * on each) and the hot account on the first.
 */
export async function ingestBenchmark(ctx: BenchContext): Promise<Row[]> {
  const seconds = ctx.options.loadSeconds;
  await ensureWorker(ctx);
  const { spread: spreadAccounts, hot: hotAccount, placements } = await loadAccounts(ctx);
  const accountIds = spreadAccounts.map((account) => account.ID);
  const events = await signedEvents(
    ctx,
    spreadAccounts.map((account) => account.AccountRef),
    2 * seconds * EVENTS_PER_LOAD_SECOND,
  );
  const hotEvents = await signedEvents(ctx, [hotAccount.AccountRef], seconds * EVENTS_PER_LOAD_SECOND);
  const cursor = { next: 0 };
  const replica = replicaLagSampler(ctx.db);
  try {
    return await ingestRuns(ctx, { events, hotEvents, cursor, accountIds, hotAccountId: hotAccount.ID, placements, replica });
  } finally {
    await replica?.close();
  }
}

/** The three load runs of ingestBenchmark, with the replica's lag sampled through each when one is attached (--replica). */
async function ingestRuns(
  ctx: BenchContext,
  run: {
    events: SignedEvent[];
    hotEvents: SignedEvent[];
    cursor: { next: number };
    accountIds: string[];
    hotAccountId: string;
    placements: Placement[];
    replica: ReplicaLagSampler | null;
  },
): Promise<Row[]> {
  const seconds = ctx.options.loadSeconds;
  const { events, hotEvents, cursor, accountIds, replica } = run;
  const shared = await replay(ctx, events, cursor, accountIds, replica);
  const unstartedAtEnd = await unstartedWorkflows(ctx);
  const queueAtEnd = await confirmationQueue(ctx);
  const apiRss = rssMiB(ctx, 'api');
  const { seconds: drainS, cpuMsPerConfirmation } = await drain(ctx, accountIds, shared.credited);

  const hot = await replay(ctx, hotEvents, { next: 0 }, [run.hotAccountId], replica);
  ctx.figures.set('ingest.spread', shared.uniqueRps);
  ctx.figures.set('ingest.hot', hot.uniqueRps);

  await ctx.sys.kill('worker');
  const alone = await replay(ctx, events, cursor, accountIds, replica);

  // One cluster keeps the name it always had, so a run on two beside it leaves both results.
  writeResult(ctx.clusters.length === 1 ? 'ingest' : `ingest-${ctx.clusters.length}-clusters`, {
    clusters: run.placements,
    shared: { ...shared, unstartedAtEnd, queueAtEnd, drainS, cpuMsPerConfirmation, apiRssMiB: apiRss },
    hot,
    workerStopped: alone,
  });
  return [
    placementRow(run.placements),
    ...loadRows('whole stack, 100 accounts', shared, seconds, TARGETS.spread),
    {
      benchmark: 'ingest',
      measure: "whole stack: workflow starts left to the worker's outbox drainer at end of load",
      value: String(unstartedAtEnd),
      target: '-',
      meets: null,
    },
    {
      benchmark: 'ingest',
      measure: 'whole stack: credits queued for a batch / held by batches at end of load',
      value: `${queueAtEnd.queued} / ${queueAtEnd.claimed}`,
      target: '-',
      meets: null,
    },
    {
      benchmark: 'ingest',
      measure: `whole stack: time until all ${shared.credited} confirmations finished, s`,
      value: drainS === null ? `not drained in ${DRAIN_TIMEOUT_MS / 60_000} min` : fixed(drainS, 0),
      target: 'drains',
      meets: drainS !== null,
    },
    {
      benchmark: 'ingest',
      measure: 'whole stack: CPU ms per confirmation while draining (load finished)',
      value: Object.entries(cpuMsPerConfirmation)
        .filter(([, ms]) => ms >= 0.05)
        .sort(([, a], [, b]) => b - a)
        .map(([role, ms]) => `${role} ${fixed(ms)}`)
        .join(', '),
      target: '-',
      meets: null,
    },
    {
      benchmark: 'ingest',
      measure: 'whole stack: API resident memory after the load, MiB',
      value: apiRss === null ? '?' : fixed(apiRss, 0),
      target: '-',
      meets: null,
    },
    ...loadRows('whole stack, one hot account', hot, seconds, TARGETS.hot),
    ...loadRows('worker stopped, 100 accounts', alone, seconds, TARGETS.none),
  ];
}
