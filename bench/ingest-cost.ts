// What one payment webhook costs Postgres, counted rather than timed, so two commits compare on a busy
// machine: the statements the API sends, the rows each table gains or changes, the index entries, WAL and
// buffers, and where the ingest statement's time goes (per plan node, as shares). Sends webhooks one at a
// time (each its own group of one) through the in-process API into one hot account and across 100
// accounts, then 32 at a time into the hot account (grouped as the API groups them) and across the 100 accounts,
// with the worker stopped.
//
// Needs a Postgres cluster of its own (its WAL counter and pg_stat_statements must see nothing else) with
// shared_preload_libraries = 'pg_stat_statements,auto_explain', pg_stat_statements.track = all,
// auto_explain.log_min_duration = -1 (the script turns it on for its plan pass), log_analyze, log_buffers,
// log_wal, log_triggers, log_nested_statements on, auto_explain.log_format = json and log_destination =
// 'jsonlog' into INGEST_COST_LOG_DIR; autovacuum off. DATABASE_URL names a migrated database there (as a
// superuser). Run from the build: node dist/bench/ingest-cost.js (INGEST_COST_WEBHOOKS, default 200).
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import knex, { type Knex } from 'knex';
import { createTenant, startStack, type Stack } from '../test/helpers/stack';
import { paymentEvent, provisionAccount, sendProviderEvent } from '../test/helpers/fixtures';

const WEBHOOKS = Number(process.env.INGEST_COST_WEBHOOKS ?? 200);
const PLAN_SAMPLES = 20;
const LOG_DIR = process.env.INGEST_COST_LOG_DIR ?? '/tmp/ipcost-pg/log';
/** Marks this script's own queries, which the counts leave out. */
const MINE = '/* ingest-cost */';

interface StatementStats {
  query: string;
  toplevel: boolean;
  calls: number;
  rows: number;
  hit: number;
  read: number;
  dirtied: number;
  walRecords: number;
  walFpi: number;
  walBytes: number;
  plans: number;
  planMs: number;
  execMs: number;
}

interface TableStats {
  ins: number;
  upd: number;
  hot: number;
}

interface Snapshot {
  statements: Map<string, StatementStats>;
  tables: Map<string, TableStats>;
  partialMatches: Map<string, number>;
  wal: { records: number; fpi: number; bytes: number };
  commits: number;
  /** The cluster's next MultiXact id: row locks shared by two or more transactions at once each create one. */
  multiXacts: number;
  /** CPU time of each server process serving this database (but this script's), in ns, from /proc/<pid>/schedstat. */
  cpuNs: Map<number, number>;
  /** This process's CPU (the API, and the client sending the webhooks), in µs. */
  apiCpuUs: number;
}

interface IndexInfo {
  table: string;
  name: string;
  predicate: string | null;
}

async function indexes(db: Knex): Promise<IndexInfo[]> {
  const { rows } = await db.raw(`${MINE} SELECT c.relname AS table, i.relname AS name, pg_get_expr(x.indpred, x.indrelid) AS predicate
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'`);
  return rows as IndexInfo[];
}

async function snapshot(db: Knex, partial: IndexInfo[]): Promise<Snapshot> {
  // An idle backend reports its table and WAL counters within 10 s (pg_stat_statements counts at once).
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await db.raw(`${MINE} SELECT pg_stat_clear_snapshot()`);
  const statements = new Map<string, StatementStats>();
  const { rows: pgss } = await db.raw(`${MINE} SELECT queryid::text AS id, toplevel, query, calls, rows, shared_blks_hit AS hit,
        shared_blks_read AS read, shared_blks_dirtied AS dirtied, wal_records, wal_fpi, wal_bytes, plans, total_plan_time, total_exec_time
      FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND query NOT LIKE '%ingest-cost%'`);
  for (const row of pgss)
    statements.set(`${row.id}/${row.toplevel}`, {
      query: String(row.query).replace(/\s+/g, ' '),
      toplevel: row.toplevel,
      calls: Number(row.calls),
      rows: Number(row.rows),
      hit: Number(row.hit),
      read: Number(row.read),
      dirtied: Number(row.dirtied),
      walRecords: Number(row.wal_records),
      walFpi: Number(row.wal_fpi),
      walBytes: Number(row.wal_bytes),
      plans: Number(row.plans),
      planMs: Number(row.total_plan_time),
      execMs: Number(row.total_exec_time),
    });
  const tables = new Map<string, TableStats>();
  const { rows: tableRows } = await db.raw(`${MINE} SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables`);
  for (const row of tableRows)
    tables.set(row.relname, { ins: Number(row.n_tup_ins), upd: Number(row.n_tup_upd), hot: Number(row.n_tup_hot_upd) });
  const partialMatches = new Map<string, number>();
  for (const index of partial) {
    const { rows } = await db.raw(`${MINE} SELECT count(*) AS n FROM ${index.table} WHERE ${index.predicate}`);
    partialMatches.set(index.name, Number(rows[0].n));
  }
  const { rows: wal } = await db.raw(`${MINE} SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal`);
  const { rows: commits } = await db.raw(`${MINE} SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`);
  const { rows: multi } = await db.raw(`${MINE} SELECT mxid_age(datminmxid) AS next FROM pg_database WHERE datname = current_database()`);
  const { rows: backends } = await db.raw(
    `${MINE} SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  const cpuNs = new Map<number, number>();
  for (const { pid } of backends as Array<{ pid: number }>) {
    try {
      cpuNs.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // Gone meanwhile.
    }
  }
  const usage = process.cpuUsage();
  return {
    apiCpuUs: usage.user + usage.system,
    cpuNs,
    statements,
    tables,
    partialMatches,
    wal: { records: Number(wal[0].wal_records), fpi: Number(wal[0].wal_fpi), bytes: Number(wal[0].wal_bytes) },
    commits: Number(commits[0].xact_commit),
    multiXacts: Number(multi[0].next),
  };
}

const perWebhook = (value: number): string => (value / WEBHOOKS).toFixed(value / WEBHOOKS >= 100 ? 0 : 2);

/** A statement's name for the table: its first words after any WITH, or the CTE names it writes. */
function labelOf(query: string): string {
  if (query.includes('INSERT INTO inbound_events') && query.includes('posting_drafts')) return 'ingest statement (payment-posting-group)';
  return query.slice(0, 90);
}

function report(title: string, before: Snapshot, after: Snapshot, allIndexes: IndexInfo[]): void {
  const lines: string[] = [`\n== ${title}: per webhook, over ${WEBHOOKS} webhooks ==`];
  lines.push(`transactions committed: ${perWebhook(after.commits - before.commits)}`);
  lines.push(`MultiXacts created: ${after.multiXacts - before.multiXacts} in all`);
  let cpuNs = 0;
  for (const [pid, ns] of after.cpuNs) cpuNs += ns - (before.cpuNs.get(pid) ?? 0);
  lines.push(
    `CPU: Postgres (the API's backends) ${(cpuNs / WEBHOOKS / 1e6).toFixed(3)} ms, API and sender process ${((after.apiCpuUs - before.apiCpuUs) / WEBHOOKS / 1e3).toFixed(3)} ms (includes this script's 11 s waits, near idle)`,
  );
  lines.push(
    `WAL (whole cluster, this run only): ${perWebhook(after.wal.records - before.wal.records)} records, ${perWebhook(after.wal.bytes - before.wal.bytes)} bytes, ${perWebhook(after.wal.fpi - before.wal.fpi)} full-page images`,
  );
  lines.push(
    'statements (calls | rows | shared hit | read | dirtied | WAL records | WAL bytes | FPI | plannings | plan ms | execution ms: times vary with load), per webhook:',
  );
  for (const [key, stats] of after.statements) {
    const was = before.statements.get(key);
    const calls = stats.calls - (was?.calls ?? 0);
    if (calls <= 0) continue;
    const delta = (field: keyof StatementStats) => (stats[field] as number) - ((was?.[field] as number) ?? 0);
    lines.push(
      `  ${stats.toplevel ? 'top   ' : 'nested'} ${perWebhook(calls)} | ${perWebhook(delta('rows'))} | ${perWebhook(delta('hit'))} | ${perWebhook(delta('read'))} | ${perWebhook(delta('dirtied'))} | ${perWebhook(delta('walRecords'))} | ${perWebhook(delta('walBytes'))} | ${perWebhook(delta('walFpi'))} | ${perWebhook(delta('plans'))} | ${(delta('planMs') / WEBHOOKS).toFixed(3)} | ${(delta('execMs') / WEBHOOKS).toFixed(3)}  ${labelOf(stats.query)}`,
    );
  }
  lines.push('tables (rows inserted | updated | of them HOT | index entries written), per webhook:');
  let entries = 0;
  for (const [table, stats] of after.tables) {
    const was = before.tables.get(table) ?? { ins: 0, upd: 0, hot: 0 };
    const ins = stats.ins - was.ins;
    const upd = stats.upd - was.upd;
    const hot = stats.hot - was.hot;
    if (ins === 0 && upd === 0) continue;
    // A full index gains an entry per row inserted and per update that is not HOT; a partial one only for rows
    // that match its predicate (counted as the change in matching rows, plus the non-HOT updates, at most).
    const written = allIndexes
      .filter((index) => index.table === table)
      .reduce((sum, index) => {
        if (!index.predicate) return sum + ins + (upd - hot);
        const matched = Math.max(0, (after.partialMatches.get(index.name) ?? 0) - (before.partialMatches.get(index.name) ?? 0));
        return sum + Math.min(matched, ins) + (upd - hot > 0 ? Math.min(upd - hot, matched + upd - hot) : 0);
      }, 0);
    entries += written;
    lines.push(`  ${table}: ${perWebhook(ins)} | ${perWebhook(upd)} | ${perWebhook(hot)} | ${perWebhook(written)}`);
  }
  lines.push(`  index entries in all: ${perWebhook(entries)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'CTE Name'?: string;
  'Subplan Name'?: string;
  'Parent Relationship'?: string;
  'Actual Total Time'?: number;
  'Actual Loops'?: number;
  'Shared Hit Blocks'?: number;
  'WAL Bytes'?: number;
  Plans?: PlanNode[];
}

interface Share {
  ms: number;
  hit: number;
  wal: number;
}

/**
 * Each node's own time, buffers and WAL (its own less its children's). A CTE's plan is run by the first CTE Scan
 * that reads it, so a CTE Scan's figures are its CTE's and count only once, under the CTE; an InitPlan child is
 * not subtracted from its nominal parent. Labelled by the CTE the node sits in.
 */
function nodeShares(node: PlanNode, cte: string, into: Map<string, Share>): void {
  const inclusive = (n: PlanNode): Share => ({
    ms: (n['Actual Total Time'] ?? 0) * (n['Actual Loops'] ?? 1),
    hit: n['Shared Hit Blocks'] ?? 0,
    wal: n['WAL Bytes'] ?? 0,
  });
  const where = node['Subplan Name']?.startsWith('CTE ') ? node['Subplan Name'].slice(4) : cte;
  const own = inclusive(node);
  for (const child of node.Plans ?? []) {
    if (child['Parent Relationship'] === 'InitPlan' && child['Subplan Name']?.startsWith('CTE ')) continue;
    const c = inclusive(child);
    own.ms -= c.ms;
    own.hit -= c.hit;
    own.wal -= c.wal;
  }
  if (node['Node Type'] !== 'CTE Scan') {
    const label = `${where}: ${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}`;
    const sum = into.get(label) ?? { ms: 0, hit: 0, wal: 0 };
    into.set(label, { ms: sum.ms + Math.max(0, own.ms), hit: sum.hit + own.hit, wal: sum.wal + own.wal });
  }
  for (const child of node.Plans ?? []) nodeShares(child, where, into);
}

function logFiles(): string[] {
  return readdirSync(LOG_DIR)
    .filter((name) => name.endsWith('.json'))
    .map((name) => join(LOG_DIR, name));
}

/** The foreign key each of Postgres's RI_ConstraintTrigger_* names checks, as table.constraint. */
async function foreignKeyTriggers(db: Knex): Promise<Map<string, string>> {
  const { rows } = await db.raw(`${MINE} SELECT t.tgname, c.conrelid::regclass || '.' || c.conname AS name
      FROM pg_trigger t JOIN pg_constraint c ON c.oid = t.tgconstraint WHERE t.tgname LIKE 'RI_ConstraintTrigger%'`);
  return new Map((rows as Array<{ tgname: string; name: string }>).map((row) => [row.tgname, row.name]));
}

function planReport(title: string, sizes: Map<string, number>, foreignKeys: Map<string, string>): void {
  const shares = new Map<string, Share>();
  let plans = 0;
  let totalMs = 0;
  for (const file of logFiles()) {
    const text = readFileSync(file, 'utf8').slice(sizes.get(file) ?? 0);
    for (const line of text.split('\n')) {
      if (!line.includes('posting_drafts') || !line.includes('inbound_events')) continue;
      const message = String((JSON.parse(line) as { message: string }).message);
      const json = message.slice(message.indexOf('{'));
      const explained = JSON.parse(json) as {
        Plan: PlanNode;
        Triggers?: Array<{ 'Trigger Name': string; Time: number }>;
        'Query Text': string;
      };
      if (!explained['Query Text'].includes('INSERT INTO inbound_events')) continue;
      plans += 1;
      nodeShares(explained.Plan, 'main query', shares);
      for (const trigger of explained.Triggers ?? []) {
        const name = trigger['Trigger Name'];
        const label = foreignKeys.has(name) ? `foreign key check ${foreignKeys.get(name)}` : `trigger ${name}`;
        const sum = shares.get(label) ?? { ms: 0, hit: 0, wal: 0 };
        shares.set(label, { ms: sum.ms + trigger.Time, hit: sum.hit, wal: sum.wal });
      }
    }
  }
  for (const share of shares.values()) totalMs += share.ms;
  const lines = [
    `\n== ${title}: the ingest statement's plan nodes by share of time (${plans} plans; buffers hit and WAL bytes per statement) ==`,
  ];
  const ranked = [...shares.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25);
  for (const [label, share] of ranked)
    lines.push(
      `  ${((100 * share.ms) / totalMs).toFixed(1).padStart(5)}%  hit ${(share.hit / Math.max(plans, 1)).toFixed(1).padStart(6)}  WAL ${(share.wal / Math.max(plans, 1)).toFixed(0).padStart(6)}  ${label}`,
    );
  lines.push(
    `  (mean statement time with per-node timing on: ${(totalMs / Math.max(plans, 1)).toFixed(3)} ms; the shares, not the times, compare)`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function send(stack: Stack, accountRef: string): Promise<void> {
  const response = await sendProviderEvent(stack, paymentEvent({ accountRef, amount: 5025, fee: 25 }));
  if (response.status !== 200) throw new Error(`webhook answered ${response.status}: ${response.text}`);
}

/** Sends `count` webhooks to `refs` in turn, `concurrency` at a time. */
async function sendAll(stack: Stack, refs: string[], count: number, concurrency: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await send(stack, refs[next++ % refs.length]!);
    }),
  );
}

async function scenario(stack: Stack, db: Knex, title: string, refs: string[], allIndexes: IndexInfo[], concurrency = 1): Promise<void> {
  const partial = allIndexes.filter((index) => index.predicate !== null);
  const before = await snapshot(db, partial);
  await sendAll(stack, refs, WEBHOOKS, concurrency);
  const after = await snapshot(db, partial);
  report(title, before, after, allIndexes);
  // The plans of webhooks sent one at a time only: a group's plan has its own shape.
  if (concurrency > 1) return;

  const sizes = new Map(logFiles().map((file) => [file, statSync(file).size]));
  await db.raw(`${MINE} ALTER SYSTEM SET auto_explain.log_min_duration = 0`);
  await db.raw(`${MINE} SELECT pg_reload_conf()`);
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let i = 0; i < PLAN_SAMPLES; i += 1) await send(stack, refs[i % refs.length]!);
  await db.raw(`${MINE} ALTER SYSTEM RESET auto_explain.log_min_duration`);
  await db.raw(`${MINE} SELECT pg_reload_conf()`);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  planReport(title, sizes, await foreignKeyTriggers(db));
}

async function main(): Promise<void> {
  process.env.PROVIDER_WEBHOOKS_SIGNING_SECRET ??= `cost-${randomBytes(16).toString('hex')}`;
  const db = knex({ client: 'pg', connection: process.env.DATABASE_URL!, pool: { min: 1, max: 1 } });
  await db.raw(`${MINE} CREATE EXTENSION IF NOT EXISTS pg_stat_statements`);
  const stack = await startStack();
  try {
    const tenant = await createTenant(stack);
    const hot = await provisionAccount(stack, tenant.apiKey);
    const spread: string[] = [];
    for (let i = 0; i < 100; i += 1) spread.push((await provisionAccount(stack, tenant.apiKey)).AccountRef);
    // Warm the caches and the prepared statements of both paths before counting.
    for (let i = 0; i < 30; i += 1) await send(stack, hot.AccountRef);
    for (const ref of spread) await send(stack, ref);
    const allIndexes = await indexes(db);
    await scenario(stack, db, 'one hot account', [hot.AccountRef], allIndexes);
    await scenario(stack, db, '100 accounts', spread, allIndexes);
    // As the benchmark sends them: 32 at a time into the hot account, which the API groups into shared statements.
    await scenario(stack, db, 'one hot account, 32 at a time (grouped)', [hot.AccountRef], allIndexes, 32);
    // And across the 100 accounts: statements of one tenant run side by side, sharing locks on the rows they all name.
    await scenario(stack, db, '100 accounts, 32 at a time', spread, allIndexes, 32);
  } finally {
    await stack.close();
    await db.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
