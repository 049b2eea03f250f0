import { readFileSync } from 'node:fs';
import { createKnex, type Db } from '../src/db';
import { uuidv7 } from '../src/ids';
import { loadConfig } from '../src/config';
import { clustersEnv, DEFAULT_CLUSTER } from '../src/config/clusters';
import { tierDefaultsOf } from '../src/policies/kyc-limits/customer-limits';
import { createPostingEngine } from '../src/ledger/posting-engine';
import { call } from '../test/helpers/http';
import { startSystem, type RunningSystem } from '../test/helpers/processes';
import type { BenchOptions } from './options';

/** A Postgres cluster of the stack, with a pool of the benchmark's own. */
export interface BenchCluster {
  name: string;
  /** host:port of its server, for the report. */
  server: string;
  db: Db;
}

/** A tenant of the benchmark and the cluster it was placed on. */
export interface BenchTenant {
  tenantId: string;
  apiKey: string;
  cluster: string;
}

export interface BenchContext {
  sys: RunningSystem;
  /** The first cluster's database (the only one unless --clusters 2). */
  db: Db;
  /** The first tenant, on the first cluster. */
  tenantId: string;
  apiKey: string;
  /** The stack's clusters, the first's pool being `db`: one, `main` on DATABASE_URL, unless --clusters 2. */
  clusters: BenchCluster[];
  /** A tenant on each cluster, the first being `tenantId`. */
  tenants: BenchTenant[];
  options: BenchOptions;
  /** Figures one benchmark leaves for another of the same run (ingest rates for the pgbench ratio). */
  figures: Map<string, number>;
  close(): Promise<void>;
}

/** The clusters DATABASE_CLUSTERS lists (scripts/bench.mjs sets it for --clusters 2), else the one on DATABASE_URL. */
function stackClusters(options: BenchOptions): BenchCluster[] {
  const listed = clustersEnv.parse(process.env).DATABASE_CLUSTERS ?? [{ name: DEFAULT_CLUSTER, databaseUrl: process.env.DATABASE_URL! }];
  if (listed.length !== options.clusters)
    throw new Error(`--clusters ${options.clusters} needs as many in DATABASE_CLUSTERS (npm run bench sets it); it lists ${listed.length}`);
  return listed.map(({ name, databaseUrl }) => ({
    name,
    server: new URL(databaseUrl).host,
    db: createKnex({ DATABASE_URL: databaseUrl, DATABASE_POOL_MAX: 4 }),
  }));
}

/** One tenant made as ever (one cluster), or with several clusters one placed on each by name. */
async function benchTenants(sys: RunningSystem, clusters: BenchCluster[]): Promise<BenchTenant[]> {
  if (clusters.length === 1) {
    const tenant = JSON.parse(await sys.cli('tenant:create', '--name', 'Benchmark Tenant', '--json')) as Omit<BenchTenant, 'cluster'>;
    return [{ ...tenant, cluster: clusters[0]!.name }];
  }
  const tenants: BenchTenant[] = [];
  for (const [index, cluster] of clusters.entries()) {
    const name = `Benchmark Tenant${index === 0 ? '' : ` ${index + 1}`}`;
    const tenant = JSON.parse(await sys.cli('tenant:create', '--name', name, '--cluster', cluster.name, '--json')) as Omit<
      BenchTenant,
      'cluster'
    >;
    tenants.push({ ...tenant, cluster: cluster.name });
  }
  return tenants;
}

export async function startBenchContext(options: BenchOptions): Promise<BenchContext> {
  const clusters = stackClusters(options);
  const sys = await startSystem({ LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const tenants = await benchTenants(sys, clusters);
  const { tenantId, apiKey } = tenants[0]!;
  return {
    sys,
    db: clusters[0]!.db,
    tenantId,
    apiKey,
    clusters,
    tenants,
    options,
    figures: new Map(),
    async close() {
      await sys.stop();
      for (const cluster of clusters) await cluster.db.destroy();
    },
  };
}

/** Accounts of the first tenant, or of the tenant whose key is `apiKey`. */
export async function provisionAccounts(
  ctx: BenchContext,
  count: number,
  apiKey = ctx.apiKey,
): Promise<Array<{ ID: string; AccountRef: string }>> {
  const accounts = [];
  for (let i = 0; i < count; i += 1) {
    const response = await call(ctx.sys.apiUrl, 'POST', '/v1/accounts', {
      apiKey,
      body: { externalRef: `bench-${uuidv7()}`, name: 'Bench Customer' },
    });
    if (response.status !== 201) throw new Error(`provisioning failed: ${response.status} ${response.text}`);
    accounts.push(response.body as { ID: string; AccountRef: string });
  }
  return accounts;
}

/** A confirmed credit through the posting engine: money the account may settle. */
export async function fund(ctx: BenchContext, accountId: string, kobo: bigint): Promise<void> {
  await ctx.db.transaction((trx) =>
    createPostingEngine(ctx.db, { tierDefaults: tierDefaultsOf(loadConfig(ctx.sys.env)) }).post(trx, accountId, [
      {
        direction: 'credit',
        kind: 'payment',
        amount: kobo,
        status: 'confirmed',
        narration: 'bench funding',
        providerTxnRef: `bench-fund-${uuidv7()}`,
        transactionGroupId: uuidv7(),
      },
    ]),
  );
}

/** Resident memory of one of the system's processes, in MiB. */
export function rssMiB(ctx: BenchContext, name: 'api' | 'worker' | 'sandbox'): number | null {
  const pid = ctx.sys.pid(name);
  if (!pid) return null;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : null;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
