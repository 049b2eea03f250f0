// The production shape of Temporal on one machine: the Temporal server built from its own Go module
// (the version the CLI v1.5.1 embeds), with Postgres persistence in the local cluster, one process
// running every service. Plain Node ESM, no npm dependencies.
//
//   ensureTemporalServerBinaries({ log }) -> { server, sqlTool, schemaDir }
//   startPostgresTemporal({ log, postgresUrl, databasePrefix, port }) -> { address, pprofUrl, pid, stop }
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheRoot, repoRoot } from '../lib/paths.mjs';
import { canBind, freePort, isExecutable, quietLog, run, sleep, spawnProcess, tail, tailFile, terminate, which } from '../lib/util.mjs';
import { ensureSearchAttributes, ensureTemporalCli } from './temporal.mjs';

const NAMESPACE = 'default';

export function temporalServerSpec() {
  return JSON.parse(readFileSync(join(repoRoot(), 'tools', 'temporal-server.json'), 'utf8'));
}

function cacheDir(version = temporalServerSpec().version) {
  return join(cacheRoot(), `temporal-server-${version}`);
}

/**
 * The server and its SQL schema tool, cached per user by version (other clones and CI reuse them), and the
 * Postgres schema files copied beside them. The build is CPU-heavy (minutes on 2 cores).
 */
export async function ensureTemporalServerBinaries({ log = quietLog } = {}) {
  const spec = temporalServerSpec();
  const dir = cacheDir(spec.version);
  const binaries = {
    server: join(dir, 'temporal-server'),
    sqlTool: join(dir, 'temporal-sql-tool'),
    schemaDir: join(dir, 'schema', 'postgresql', 'v12'),
  };
  if (isExecutable(binaries.server) && isExecutable(binaries.sqlTool) && existsSync(binaries.schemaDir)) return binaries;
  const go = which('go');
  if (!go)
    throw new Error(
      'the Temporal server is not built and Go is missing to build it (apt-get install golang-go, or set TEMPORAL_ADDRESS to a server of your own)',
    );
  mkdirSync(dir, { recursive: true });
  const env = { ...process.env, GOFLAGS: [process.env.GOFLAGS, '-buildvcs=false'].filter(Boolean).join(' ') };
  log(`building the Temporal server ${spec.module}@${spec.version} with Postgres persistence (minutes on 2 cores; cached in ${dir})`);
  const download = await run(go, ['mod', 'download', '-json', `${spec.module}@${spec.version}`], { env, timeoutMs: 30 * 60_000 });
  const moduleDir = download.ok ? JSON.parse(download.stdout).Dir : null;
  if (!moduleDir)
    throw new Error(`go mod download ${spec.module}@${spec.version} failed:\n${tail(download.stderr || download.stdout, 30)}`);
  // At the lowest CPU priority, so that whatever else runs on the machine keeps its share.
  const nice = which('nice');
  const [command, ...prefix] = nice ? [nice, '-n', '19', go] : [go];
  const started = Date.now();
  for (const [pkg, out] of [
    ['./cmd/server', binaries.server],
    ['./cmd/tools/sql', binaries.sqlTool],
  ]) {
    if (isExecutable(out)) continue;
    const tmp = `${out}.tmp`;
    rmSync(tmp, { force: true });
    // Built inside the module (its own go.mod applies); the module cache is read-only, the build writes GOCACHE and -o.
    const result = await run(command, [...prefix, 'build', '-trimpath', '-ldflags', '-s -w', '-o', tmp, pkg], {
      cwd: moduleDir,
      env,
      timeoutMs: 60 * 60_000,
    });
    if (!result.ok || !isExecutable(tmp)) {
      rmSync(tmp, { force: true });
      throw new Error(`go build ${pkg} of the Temporal server failed:\n${tail(result.stderr || result.stdout, 40)}`);
    }
    renameSync(tmp, out);
  }
  cpSync(join(moduleDir, 'schema', 'postgresql', 'v12'), binaries.schemaDir, { recursive: true });
  log(`built the Temporal server in ${Math.round((Date.now() - started) / 1000)} s`);
  return binaries;
}

function connectionOf(postgresUrl) {
  const url = new URL(postgresUrl);
  return {
    host: url.hostname,
    port: url.port || '5432',
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
}

/** Creates (when missing) each database and brings its schema to the newest version with Temporal's own SQL tool. */
async function setupSchema({ sqlTool, schemaDir, pg, databases, log }) {
  for (const [database, schema] of [
    [databases.main, 'temporal'],
    [databases.visibility, 'visibility'],
  ]) {
    const base = [
      sqlTool,
      '--plugin',
      'postgres12',
      '--ep',
      pg.host,
      '--port',
      pg.port,
      '--user',
      pg.user,
      '--password',
      pg.password,
      '--db',
      database,
    ];
    const tool = (...args) => run(base[0], [...base.slice(1), ...args], { timeoutMs: 120_000 });
    const created = await tool('create-database');
    if (!created.ok && !/already exists/i.test(created.stderr + created.stdout))
      throw new Error(`temporal-sql-tool create-database ${database}:\n${tail(created.stderr || created.stdout, 20)}`);
    // setup-schema -v 0.0 creates the version table only (no-op when it exists); update-schema applies every versioned step.
    const setup = await tool('setup-schema', '-v', '0.0');
    if (!setup.ok && !/already exists/i.test(setup.stderr + setup.stdout))
      throw new Error(`temporal-sql-tool setup-schema ${database}:\n${tail(setup.stderr || setup.stdout, 20)}`);
    const update = await tool('update-schema', '-d', join(schemaDir, schema, 'versioned'));
    if (!update.ok) throw new Error(`temporal-sql-tool update-schema ${database}:\n${tail(update.stderr || update.stdout, 20)}`);
    log(`schema of ${database} is current`);
  }
}

/**
 * Eight consecutive free ports below 32768: the server stores membership ports in a smallint column, so
 * the ephemeral range (above 32768 on Linux) is refused.
 */
async function freePortBlock() {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    const ports = Array.from({ length: 8 }, (_, i) => base + i);
    if ((await Promise.all(ports.map(canBind))).every(Boolean)) return base;
  }
  throw new Error('no block of 8 free ports between 20000 and 32000');
}

/** One process, every service, Postgres for both stores. Ports: frontend `port`, the others next to it. */
function serverConfig({ pg, databases, port, pprofPort, metricsPort }) {
  const store = (database, maxConns) => `
      sql:
        pluginName: "postgres12"
        databaseName: "${database}"
        connectAddr: "${pg.host}:${pg.port}"
        connectProtocol: "tcp"
        user: "${pg.user}"
        password: "${pg.password}"
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: "1h"`;
  const service = (grpcPort, membershipPort) => `
    rpc:
      grpcPort: ${grpcPort}
      membershipPort: ${membershipPort}
      bindOnLocalHost: true`;
  return `# Written by scripts/infra/temporal-postgres.mjs: one process, every service, Postgres persistence.
log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:${store(databases.main, 10)}
    postgres-visibility:${store(databases.visibility, 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
  pprof:
    port: ${pprofPort}
  metrics:
    prometheus:
      framework: "tally"
      timerType: "histogram"
      listenAddress: "127.0.0.1:${metricsPort}"
services:
  frontend:${service(port, port + 1)}
  history:${service(port + 2, port + 3)}
  matching:${service(port + 4, port + 5)}
  worker:${service(port + 6, port + 7)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${port}"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: "config/dynamic.yaml"
  pollInterval: "60s"
`;
}

/** As the dev server does: search attributes created a moment ago are usable at once. */
const DYNAMIC_CONFIG = `system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
`;

/**
 * Starts the Postgres-persisted server: databases `<prefix>` and `<prefix>_visibility` in the cluster of
 * `postgresUrl` (created and migrated when missing, so a second start keeps its workflows), the `default`
 * namespace and the project's search attributes. Ports: `port` (frontend gRPC, default a free block below
 * 32768) and the seven after it; pprof and the server's own Prometheus metrics on free ports.
 */
export async function startPostgresTemporal({ log = quietLog, postgresUrl, databasePrefix = 'temporal', port } = {}) {
  const binaries = await ensureTemporalServerBinaries({ log });
  const pg = connectionOf(postgresUrl);
  const databases = { main: databasePrefix, visibility: `${databasePrefix}_visibility` };
  await setupSchema({ ...binaries, pg, databases, log });
  const frontend = port ?? (await freePortBlock());
  const [pprofPort, metricsPort] = [await freePort(), await freePort()];
  const root = join(tmpdir(), `nuban-ledger-temporal-postgres-${frontend}`);
  mkdirSync(join(root, 'config'), { recursive: true });
  writeFileSync(join(root, 'config', 'production.yaml'), serverConfig({ pg, databases, port: frontend, pprofPort, metricsPort }));
  writeFileSync(join(root, 'config', 'dynamic.yaml'), DYNAMIC_CONFIG);
  const logFile = join(root, 'server.log');
  const fd = openSync(logFile, 'a');
  const child = spawnProcess(binaries.server, ['--root', root, '--config', 'config', '--env', 'production', '--allow-no-auth', 'start'], {
    cwd: root,
    logFd: fd,
  });
  closeSync(fd);
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    await terminate(child, 10_000);
  };
  const address = `127.0.0.1:${frontend}`;
  log(
    `starting the Temporal server (Postgres persistence, databases ${databases.main}, ${databases.visibility}) on ${address}, log ${logFile}`,
  );
  try {
    const cli = await ensureTemporalCli({ log });
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the Temporal server exited (${child.exitCode}):\n${tailFile(logFile, 30)}`);
      const health = await run(cli, ['operator', 'cluster', 'health', '--address', address, '--command-timeout', '5s'], {
        timeoutMs: 10_000,
      });
      if (health.ok && /SERVING/.test(health.stdout)) break;
      if (Date.now() > deadline) throw new Error(`the Temporal server did not serve on ${address} within 120 s:\n${tailFile(logFile, 30)}`);
      await sleep(500);
    }
    const describe = await run(cli, ['operator', 'namespace', 'describe', NAMESPACE, '--address', address, '--command-timeout', '10s'], {
      timeoutMs: 20_000,
    });
    if (!describe.ok) {
      const create = await run(
        cli,
        [
          'operator',
          'namespace',
          'create',
          '--namespace',
          NAMESPACE,
          '--retention',
          '72h',
          '--address',
          address,
          '--command-timeout',
          '20s',
        ],
        { timeoutMs: 30_000 },
      );
      if (!create.ok && !/already/i.test(create.stderr))
        throw new Error(`cannot create namespace ${NAMESPACE}:\n${tail(create.stderr || create.stdout, 10)}`);
    }
    // A new namespace reaches every service's namespace cache within seconds: until then its search attributes cannot be listed.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await ensureSearchAttributes({ log, address, cli });
        break;
      } catch (error) {
        if (attempt >= 60) throw error;
        await sleep(1_000);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  log(`Temporal server with Postgres persistence ready on ${address} (pid ${child.pid}; pprof http://127.0.0.1:${pprofPort}/debug/pprof/)`);
  return {
    address,
    pid: child.pid,
    pprofUrl: `http://127.0.0.1:${pprofPort}/debug/pprof/`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    logFile,
    stop,
  };
}

/** Drops the two databases of a server started with this prefix (the server must be stopped). */
export async function dropPostgresTemporalDatabases({ postgresUrl, databasePrefix }) {
  const { sqlTool } = await ensureTemporalServerBinaries();
  const pg = connectionOf(postgresUrl);
  for (const database of [databasePrefix, `${databasePrefix}_visibility`]) {
    await run(
      sqlTool,
      [
        '--plugin',
        'postgres12',
        '--ep',
        pg.host,
        '--port',
        pg.port,
        '--user',
        pg.user,
        '--password',
        pg.password,
        '--db',
        database,
        'drop-database',
        '--force',
      ],
      {
        timeoutMs: 60_000,
      },
    );
  }
}
