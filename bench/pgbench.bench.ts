import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchContext } from './context';
import { fixed, writeResult, type Row } from './report';

/**
 * The webhook's posting shape in one statement, as raw Postgres does it without us: claim a request id
 * (unique insert), lock the account row, append an entry with its seq and running balance, move the
 * account's totals, queue a workflow start. What it sustains is the ceiling our ingest is compared with.
 */
const SCRIPT = `\\set acct random(1, :accounts)
WITH claim AS (
  INSERT INTO pgb_events (request_id, account_id, payload) VALUES (md5(random()::text || clock_timestamp()::text), :acct, jsonb_build_object('amount', 1000))
  ON CONFLICT (request_id) DO NOTHING RETURNING id
), a AS (
  SELECT id, last_seq, total_credits FROM pgb_accounts WHERE id = :acct AND EXISTS (SELECT 1 FROM claim) FOR NO KEY UPDATE
), e AS (
  INSERT INTO pgb_entries (account_id, seq, amount, balance_after, created_at)
  SELECT id, last_seq + 1, 1000, total_credits + 1000, clock_timestamp() FROM a RETURNING id
), u AS (
  UPDATE pgb_accounts v SET last_seq = a.last_seq + 1, total_credits = a.total_credits + 1000, ledger_balance = a.total_credits + 1000,
         pending_credits = v.pending_credits + 1000, updated_at = now()
    FROM a WHERE v.id = a.id RETURNING v.id
), o AS (
  INSERT INTO pgb_outbox (workflow_id, args) SELECT 'w' || e.id, '{}' FROM e RETURNING 1
)
SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM o);
`;

const SCHEMA = `
  DROP TABLE IF EXISTS pgb_outbox, pgb_entries, pgb_events, pgb_accounts;
  CREATE TABLE pgb_accounts (id int PRIMARY KEY, last_seq bigint NOT NULL DEFAULT 0, total_credits bigint NOT NULL DEFAULT 0,
                             ledger_balance bigint NOT NULL DEFAULT 0, pending_credits bigint NOT NULL DEFAULT 0, updated_at timestamptz);
  CREATE TABLE pgb_events (id bigserial PRIMARY KEY, request_id text UNIQUE, account_id int NOT NULL REFERENCES pgb_accounts, payload jsonb,
                           received_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE pgb_entries (id bigserial PRIMARY KEY, account_id int NOT NULL REFERENCES pgb_accounts, seq bigint NOT NULL, amount bigint NOT NULL,
                            balance_after bigint NOT NULL, created_at timestamptz NOT NULL, UNIQUE (account_id, seq));
  CREATE TABLE pgb_outbox (workflow_id text PRIMARY KEY, args jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), started_at timestamptz);
  INSERT INTO pgb_accounts (id) SELECT generate_series(1, 100);
`;

function pgbenchPath(): string | null {
  const onPath = spawnSync('sh', ['-c', 'command -v pgbench'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  const base = '/usr/lib/postgresql';
  const version = existsSync(base) ? readdirSync(base).find((dir) => existsSync(path.join(base, dir, 'bin', 'pgbench'))) : undefined;
  return version ? path.join(base, version, 'bin', 'pgbench') : null;
}

function runPgbench(bin: string, script: string, accounts: number, seconds: number): { tps: number; latencyMs: number } {
  const output = execFileSync(
    bin,
    [
      '-n',
      '-M',
      'prepared',
      '-c',
      '32',
      '-j',
      '2',
      '-T',
      String(Math.max(1, Math.round(seconds))),
      '-D',
      `accounts=${accounts}`,
      '-f',
      script,
      process.env.DATABASE_URL!,
    ],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const tps = Number(/tps = ([\d.]+)/.exec(output)?.[1]);
  const latencyMs = Number(/latency average = ([\d.]+) ms/.exec(output)?.[1]);
  return { tps, latencyMs };
}

/** pgbench with the posting shape at 32 clients, across 100 accounts and on one hot account; the ratio of our ingest to it. */
export async function pgbenchBenchmark(ctx: BenchContext): Promise<Row[]> {
  const bin = pgbenchPath();
  if (!bin)
    return [
      {
        benchmark: 'pgbench',
        measure: 'raw Postgres, posting shape',
        value: 'pgbench not installed (Debian: postgresql or postgresql-contrib)',
        target: '-',
        meets: null,
      },
    ];
  const dir = mkdtempSync(path.join(tmpdir(), 'pgbench-'));
  const script = path.join(dir, 'posting.sql');
  writeFileSync(script, SCRIPT);
  try {
    await ctx.db.raw(SCHEMA);
    const spread = runPgbench(bin, script, 100, ctx.options.loadSeconds);
    const hot = runPgbench(bin, script, 1, ctx.options.loadSeconds);
    writeResult('pgbench', { clients: 32, seconds: ctx.options.loadSeconds, spread, hot });
    const ratio = (figure: string, tps: number): Row => {
      const ours = ctx.figures.get(figure);
      return {
        benchmark: 'pgbench',
        measure: `our ${figure === 'ingest.spread' ? '100-account' : 'hot-account'} ingest / raw Postgres`,
        value:
          ours === undefined ? 'run with ingest for the ratio' : `${fixed((ours / tps) * 100, 0)}% (${fixed(ours, 0)} / ${fixed(tps, 0)})`,
        target: '-',
        meets: null,
      };
    };
    return [
      {
        benchmark: 'pgbench',
        measure: 'raw Postgres, posting shape, 100 accounts, 32 clients: tx/s (latency avg ms)',
        value: `${fixed(spread.tps, 0)} (${fixed(spread.latencyMs, 2)})`,
        target: '-',
        meets: null,
      },
      {
        benchmark: 'pgbench',
        measure: 'raw Postgres, posting shape, one account, 32 clients: tx/s (latency avg ms)',
        value: `${fixed(hot.tps, 0)} (${fixed(hot.latencyMs, 2)})`,
        target: '-',
        meets: null,
      },
      ratio('ingest.spread', spread.tps),
      ratio('ingest.hot', hot.tps),
    ];
  } finally {
    await ctx.db.raw('DROP TABLE IF EXISTS pgb_outbox, pgb_entries, pgb_events, pgb_accounts');
    rmSync(dir, { recursive: true, force: true });
  }
}
