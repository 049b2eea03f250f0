import { performance } from 'node:perf_hooks';
import { createKnex, migrationConfig } from '../src/db';
import { createLogger } from '../src/logger';
import type { TenantWorkflowsPart } from '../src/tenant-moves/move-parts';
import { moveTenant } from '../src/tenant-moves/tenant-move';
import { call } from '../test/helpers/http';
import { fund, type BenchContext } from './context';
import { fixed, writeResult, type Row } from './report';

/** The moved tenant's entries, spread over ACCOUNTS accounts. */
const ENTRIES = 10_000;
const ACCOUNTS = 10;
/** Credits posted at once while seeding. */
const SEED_CONCURRENCY = 8;

/** A tenant without workflows: nothing to stop or restart. */
const noWorkflows: TenantWorkflowsPart = { stopRunning: async () => [], restartUnfinished: async () => 0 };

/**
 * A tenant of ENTRIES entries (confirmed credits through the posting engine, each carrying its counter postings) moved
 * to a second, migrated database on the same server:
 * the time its writes are paused (from the directory's pause to its switch) and the time of the fenced copy with its
 * verification inside it.
 */
export async function tenantMoveBenchmark(ctx: BenchContext): Promise<Row[]> {
  const tenant = JSON.parse(await ctx.sys.cli('tenant:create', '--name', 'Moving Tenant', '--json')) as {
    tenantId: string;
    apiKey: string;
  };
  const accounts: string[] = [];
  for (let i = 0; i < ACCOUNTS; i += 1) {
    const response = await call(ctx.sys.apiUrl, 'POST', '/v1/accounts', {
      apiKey: tenant.apiKey,
      body: { externalRef: `move-${i}`, name: 'Moving Customer' },
    });
    if (response.status !== 201) throw new Error(`provisioning failed: ${response.status} ${response.text}`);
    accounts.push((response.body as { ID: string }).ID);
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < ENTRIES) {
        next += 1;
        await fund(ctx, accounts[next % ACCOUNTS]!, 10_000n);
      }
    }),
  );

  const targetName = `${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_move_target`;
  await ctx.db.raw(`CREATE DATABASE "${targetName}"`);
  const targetUrl = new URL(process.env.DATABASE_URL!);
  targetUrl.pathname = `/${targetName}`;
  const target = createKnex({ DATABASE_URL: targetUrl.toString(), DATABASE_POOL_MAX: 4 });
  try {
    await target.migrate.latest(migrationConfig);
    let pausedAt = 0;
    let pausedMs = 0;
    const homes = new Map<string, string>();
    const moved = await moveTenant(tenant.tenantId, {
      directory: {
        clusterOf: async (tenantId) => homes.get(tenantId) ?? 'source',
        beginMove: async () => {
          pausedAt = performance.now();
        },
        finishMove: async (tenantId, cluster) => {
          homes.set(tenantId, cluster);
          pausedMs = performance.now() - pausedAt;
        },
      },
      source: { cluster: 'source', db: ctx.db, workflows: noWorkflows },
      target: { cluster: 'target', db: target, workflows: noWorkflows },
      logger: createLogger('warn', 'bench'),
    });
    if (moved.outcome !== 'moved') throw new Error(`the move was refused: ${moved.differences.join('; ')}`);
    writeResult('tenant-move', { entries: ENTRIES, accounts: ACCOUNTS, pausedMs, copyMs: moved.copyMs, copied: moved.copied });
    return [
      {
        benchmark: 'tenant-move',
        measure: `writes paused while a tenant of ${ENTRIES / 1000}k entries moves (pause to switch), s`,
        value: fixed(pausedMs / 1000, 2),
        target: '-',
        meets: null,
      },
      {
        benchmark: 'tenant-move',
        measure: `of which the fenced copy and its verification, s (${moved.copied!.ledger_entries} entries, ${Object.values(moved.copied!).reduce((a, b) => a + b, 0)} rows)`,
        value: fixed(moved.copyMs! / 1000, 2),
        target: '-',
        meets: null,
      },
    ];
  } finally {
    await target.destroy();
    await ctx.db.raw(`DROP DATABASE IF EXISTS "${targetName}" WITH (FORCE)`);
  }
}
