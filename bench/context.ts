import { readFileSync } from 'node:fs';
import { createKnex, type Db } from '../src/db';
import { uuidv7 } from '../src/ids';
import { loadConfig } from '../src/config';
import { tierDefaultsOf } from '../src/policies/kyc-limits/customer-limits';
import { createPostingEngine } from '../src/ledger/posting-engine';
import { call } from '../test/helpers/http';
import { startSystem, type RunningSystem } from '../test/helpers/processes';
import type { BenchOptions } from './options';

export interface BenchContext {
  sys: RunningSystem;
  db: Db;
  tenantId: string;
  apiKey: string;
  options: BenchOptions;
  /** Figures one benchmark leaves for another of the same run (ingest rates for the pgbench ratio). */
  figures: Map<string, number>;
  close(): Promise<void>;
}

export async function startBenchContext(options: BenchOptions): Promise<BenchContext> {
  const sys = await startSystem({ LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const db = createKnex({ DATABASE_URL: process.env.DATABASE_URL!, DATABASE_POOL_MAX: 4 });
  const tenant = JSON.parse(await sys.cli('tenant:create', '--name', 'Benchmark Tenant', '--json')) as { tenantId: string; apiKey: string };
  return {
    sys,
    db,
    ...tenant,
    options,
    figures: new Map(),
    async close() {
      await sys.stop();
      await db.destroy();
    },
  };
}

export async function provisionAccounts(ctx: BenchContext, count: number): Promise<Array<{ ID: string; AccountRef: string }>> {
  const accounts = [];
  for (let i = 0; i < count; i += 1) {
    const response = await call(ctx.sys.apiUrl, 'POST', '/v1/accounts', {
      apiKey: ctx.apiKey,
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
