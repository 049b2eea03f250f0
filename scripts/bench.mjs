// `npm run bench [-- fairness sustained ingest pgbench settle statement baseline balance-at tenant-move] [--rate N --minutes M
// --search --step-minutes M --burst N --entries N --history-months N --load-seconds S --temporal dev|postgres --replica --clusters 1|2]`: the
// benchmarks against the real local stack (API, worker and sandbox processes, Postgres, a Temporal server
// of their own: the dev server, or with `--temporal postgres` the server with Postgres persistence). `--replica`
// attaches the local streaming replica (ensureReplica) as DATABASE_REPLICA_URL; ingest then samples its lag.
// `--clusters 2` (ingest alone) puts the stack on two clusters, a database on the first server and one on the second
// (ensureSecondPostgres, port 5433), as START_CLUSTERS=2 does.
// Prints a table and writes bench/results/<name>.json. A benchmark never fails on time: it reports
// figures beside targets.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { prepareCode } from './lib/build.mjs';
import { repoRoot } from './lib/paths.mjs';
import { runCli } from './lib/services.mjs';
import { makeLogger, run } from './lib/util.mjs';
import { ensurePostgres, ensureReplica, ensureSecondPostgres, twoClustersSetting } from './infra/postgres.mjs';
import { startIsolatedTemporal } from './infra/temporal.mjs';
import { dropPostgresTemporalDatabases, startPostgresTemporal } from './infra/temporal-postgres.mjs';

const log = makeLogger('bench');

/** `--clusters N`: 1 unless given (bench/options.ts checks the rest of the arguments). */
function clustersAsked(args) {
  const at = args.indexOf('--clusters');
  if (at === -1) return 1;
  const value = args[at + 1];
  if (value !== '1' && value !== '2') throw new Error('--clusters takes 1 or 2');
  return Number(value);
}

/** A new database named `name` on the server of `serverUrl`: its URL, and `drop` to remove it with the admin connection. */
async function benchDatabase(pg, serverUrl, name) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}

async function main() {
  await prepareCode({ log });
  const postgres = await ensurePostgres({ log: makeLogger('postgres') });
  const withReplica = process.argv.includes('--replica');
  const args = process.argv.slice(2).filter((arg) => arg !== '--replica');
  const replica = withReplica ? await ensureReplica({ log: makeLogger('replica') }) : null;
  const second = clustersAsked(args) === 2 ? await ensureSecondPostgres({ log: makeLogger('postgres-2') }) : null;
  const onPostgres = args[args.indexOf('--temporal') + 1] === 'postgres' && args.includes('--temporal');
  const temporalDatabases = `temporal_bench_${Date.now()}`;
  const temporal = onPostgres
    ? await startPostgresTemporal({ log: makeLogger('temporal'), postgresUrl: postgres.url, databasePrefix: temporalDatabases })
    : await startIsolatedTemporal({ log: makeLogger('temporal') });
  const { default: pg } = await import(join(repoRoot(), 'node_modules', 'pg', 'lib', 'index.js'));
  const database = `ledger_bench_${Date.now()}`;
  const databases = [await benchDatabase(pg, postgres.url, database)];
  if (second) databases.push(await benchDatabase(pg, second.url, database));
  const url = databases[0].url;
  // The replica follows every database of the primary: the benchmark's own is there too.
  const replicaUrl = replica ? Object.assign(new URL(replica.url), { pathname: new URL(url).pathname }).toString() : null;
  const env = {
    ...process.env,
    DATABASE_URL: url,
    // Two clusters: the first's database is also the control database (the directory of placements).
    ...(second ? { DATABASE_CLUSTERS: twoClustersSetting(url, databases[1].url) } : {}),
    ...(replicaUrl ? { DATABASE_REPLICA_URL: replicaUrl } : {}),
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
    // As deployed: no response-schema checks in the request path. Not the production checks, which
    // refuse the sandbox and loopback callbacks the benchmarks need.
    NODE_ENV: 'development',
    ALLOW_DEVELOPMENT_SETTINGS: 'true',
    RESPONSE_SCHEMA_CHECKS: 'false',
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PROVIDER_WEBHOOKS_SIGNING_SECRET: `bench-${randomBytes(16).toString('hex')}`,
    ALLOW_PRIVATE_CALLBACK_URLS: 'true',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
  let code = 1;
  try {
    await runCli(['db:migrate'], { env });
    const result = await run(process.execPath, ['--enable-source-maps', join(repoRoot(), 'dist', 'bench', 'run.js'), ...args], {
      cwd: repoRoot(),
      env,
      stdio: 'inherit',
    });
    code = result.ok ? 0 : 1;
  } finally {
    for (const created of databases) await created.drop();
    await temporal.stop();
    if (onPostgres)
      await dropPostgresTemporalDatabases({ postgresUrl: postgres.url, databasePrefix: temporalDatabases }).catch((error) =>
        log(`could not drop ${temporalDatabases}: ${error.message}`),
      );
  }
  process.exit(code);
}

main().catch((error) => {
  log(error.stack ?? String(error));
  process.exit(1);
});
