#!/usr/bin/env node
// Provision local infrastructure by hand:
//   node scripts/infra/provision.mjs [postgres|postgres-second|temporal-cli|test-server|chromium|temporal-server|temporal-postgres|all]
// `all` (default) = postgres + temporal-cli + test-server + chromium. `postgres-second` makes the second local cluster
// (port 5433) that START_CLUSTERS=2 and the clusters test use. `temporal-server` starts the dev server
// (npm start's, on 7233) in the foreground until Ctrl-C; `temporal-postgres` builds (once) and starts the Temporal
// server with Postgres persistence (databases temporal and temporal_visibility) on TEMPORAL_PORT (7233),
// in the foreground until Ctrl-C.
import { makeLogger } from '../lib/util.mjs';
import { ensureChromium } from './chromium.mjs';
import { ensurePostgres, ensureSecondPostgres } from './postgres.mjs';
import { ensureTemporalCli, ensureTemporalServer } from './temporal.mjs';
import { startPostgresTemporal } from './temporal-postgres.mjs';
import { ensureTestServerExecutable } from './test-server.mjs';

const TARGETS = ['postgres', 'postgres-second', 'temporal-cli', 'test-server', 'chromium', 'temporal-server', 'temporal-postgres', 'all'];

function redact(url) {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

async function timed(name, fn) {
  const t0 = Date.now();
  const result = await fn(makeLogger(name));
  return { result, ms: Date.now() - t0 };
}

async function main() {
  const target = process.argv[2] ?? 'all';
  if (!TARGETS.includes(target) || process.argv.includes('--help') || process.argv.includes('-h')) {
    console.error(`usage: node scripts/infra/provision.mjs [${TARGETS.join('|')}]`);
    process.exit(target === '--help' || target === '-h' ? 0 : 2);
  }
  const want = (t) => target === t || (target === 'all' && !['temporal-server', 'temporal-postgres', 'postgres-second'].includes(t));
  let failed = false;
  const step = async (name, fn, show) => {
    try {
      const { result, ms } = await timed(name, fn);
      console.log(`${name.padEnd(13)} ${show(result)}  (${ms} ms)`);
    } catch (e) {
      failed = true;
      console.log(`${name.padEnd(13)} FAILED: ${e.message}`);
    }
  };

  if (want('postgres'))
    await step(
      'postgres',
      (log) => ensurePostgres({ log }),
      (r) => redact(r.url),
    );
  if (want('postgres-second'))
    await step(
      'postgres-2',
      (log) => ensureSecondPostgres({ log }),
      (r) => redact(r.url),
    );
  if (want('temporal-cli'))
    await step(
      'temporal-cli',
      (log) => ensureTemporalCli({ log }),
      (p) => p,
    );
  if (want('test-server')) {
    await step(
      'test-server',
      (log) => ensureTestServerExecutable({ log }),
      (r) => (r ? r.path : 'unavailable (no java/mvn): the SDK would download its own test server'),
    );
  }
  if (want('chromium'))
    await step(
      'chromium',
      (log) => ensureChromium({ log }),
      (r) => r.path,
    );
  if (want('temporal-postgres')) {
    let server;
    await step(
      'temporal',
      async (log) => {
        const postgres = await ensurePostgres({ log });
        server = await startPostgresTemporal({
          log,
          postgresUrl: postgres.url,
          databasePrefix: 'temporal',
          port: Number(process.env.TEMPORAL_PORT ?? 7233),
        });
        return server;
      },
      (r) => `${r.address}  (Postgres persistence; pprof ${r.pprofUrl}; Ctrl-C stops it)`,
    );
    if (server) {
      const shutdown = async () => {
        await server.stop();
        process.exit(0);
      };
      process.on('SIGINT', shutdown);
      process.on('SIGTERM', shutdown);
      await new Promise(() => {});
    }
  }
  if (want('temporal-server')) {
    let server;
    await step(
      'temporal',
      async (log) => (server = await ensureTemporalServer({ log })),
      (r) =>
        `${r.address}${r.uiUrl ? `  UI ${r.uiUrl}` : ''}${r.startedHere ? '  (started here; Ctrl-C stops it)' : '  (already running)'}`,
    );
    if (server?.startedHere) {
      const shutdown = async () => {
        await server.stop();
        process.exit(0);
      };
      process.on('SIGINT', shutdown);
      process.on('SIGTERM', shutdown);
      await new Promise(() => {});
    }
  }
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e.stack ?? e);
  process.exit(1);
});
