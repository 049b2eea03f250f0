// Provision a local PostgreSQL for the ledger: Debian's cluster, a `ledger` role and database.
// Plain Node ESM, no npm dependencies.
//
//   ensurePostgres({ log }) -> { url }
//
// DATABASE_URL, when set, wins: it is returned untouched after a TCP check. ensureReplica (below) adds a read replica.
import { existsSync, mkdirSync, readdirSync, chownSync, chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isPortOpen, isRoot, quietLog, run, runSync, sleep, tail, which } from '../lib/util.mjs';

const ROLE = 'ledger';
const PASSWORD = 'ledger';
const DATABASE = 'ledger';
const SOCKET_DIR = '/run/postgresql';

export function ledgerUrl(port = 5432) {
  return `postgres://${ROLE}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
}

/** Installed server versions under /usr/lib/postgresql/<ver>/bin, newest first. */
function installedVersions() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .filter((v) => existsSync(`${base}/${v}/bin/postgres`))
    .sort((a, b) => Number(b) - Number(a));
}

function debianToolsPresent() {
  return which('pg_lsclusters') !== null && which('pg_ctlcluster') !== null && installedVersions().length > 0;
}

/** Debian clusters: [{ version, cluster, port, status, owner, dataDir }]. */
function listClusters() {
  const r = runSync('pg_lsclusters', ['--json']);
  if (r.ok) {
    try {
      return JSON.parse(r.stdout).map((c) => ({
        version: String(c.version),
        cluster: c.cluster,
        port: Number(c.port),
        status: c.running ? 'online' : 'down',
        owner: c.owner,
        dataDir: c.pgdata,
      }));
    } catch {
      /* fall back to text */
    }
  }
  const t = runSync('pg_lsclusters', ['--no-header']);
  if (!t.ok) return [];
  return t.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 6)
    .map(([version, cluster, port, status, owner, dataDir]) => ({
      version,
      cluster,
      port: Number(port),
      status: status.split(',')[0],
      owner,
      dataDir,
    }));
}

/** psql against a URL; returns the run() result. */
function psqlUrl(url, sql, timeoutSec = 3) {
  const psql = which('psql') ?? `/usr/lib/postgresql/${installedVersions()[0]}/bin/psql`;
  return run(psql, [url, '-v', 'ON_ERROR_STOP=1', '-tAc', sql], {
    env: { ...process.env, PGCONNECT_TIMEOUT: String(timeoutSec), PGPASSWORD: '' },
    timeoutMs: (timeoutSec + 5) * 1000,
  });
}

/** psql as the postgres superuser over the local socket (peer auth). */
async function psqlAdmin(port, sql, { db = 'postgres', check = true } = {}) {
  const r = await run(
    'runuser',
    ['-u', 'postgres', '--', 'psql', '-X', '-p', String(port), '-d', db, '-v', 'ON_ERROR_STOP=1', '-tAc', sql],
    { timeoutMs: 30_000, cwd: '/' },
  );
  if (check && !r.ok) throw new Error(`psql as postgres failed: ${sql}\n${tail(r.stderr || r.stdout, 20)}`);
  return r;
}

function parseUrl(u) {
  try {
    const p = new URL(u);
    return { host: p.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(p.port || 5432) };
  } catch {
    return null;
  }
}

async function aptInstallPostgres(log) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  log('installing Debian postgresql (apt-get install -y postgresql)...');
  let r = await run('apt-get', ['install', '-y', 'postgresql'], { env, timeoutMs: 15 * 60_000 });
  if (!r.ok) {
    log('apt-get install failed; running apt-get update and retrying');
    await run('apt-get', ['update'], { env, timeoutMs: 10 * 60_000 });
    r = await run('apt-get', ['install', '-y', 'postgresql'], { env, timeoutMs: 15 * 60_000 });
  }
  if (!r.ok) throw new Error(`apt-get install -y postgresql failed:\n${tail(r.stderr || r.stdout, 30)}`);
}

/** /run/postgresql disappears on reboot (tmpfs); pg_ctlcluster needs it. */
function ensureSocketDir() {
  if (existsSync(SOCKET_DIR)) return;
  mkdirSync(SOCKET_DIR, { recursive: true });
  const pw = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (pw) {
    const [, , uid, gid] = pw.split(':');
    chownSync(SOCKET_DIR, Number(uid), Number(gid));
  }
  chmodSync(SOCKET_DIR, 0o2775);
}

async function waitReady(port, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await run('pg_isready', ['-q', '-h', SOCKET_DIR, '-p', String(port)], { timeoutMs: 10_000 });
    if (last.ok) return;
    await sleep(250);
  }
  throw new Error(`PostgreSQL on port ${port} did not become ready within ${timeoutMs} ms (pg_isready exit ${last?.code})`);
}

function quoteLiteral(s) {
  return `'${String(s).replace(/'/g, "''")}'`;
}

/** Role `ledger` (LOGIN, CREATEDB, password) and database `ledger` owned by it; create only what is missing. */
async function ensureRoleAndDb(port, log) {
  const role = await psqlAdmin(
    port,
    `SELECT rolcanlogin::int::text || rolcreatedb::int::text FROM pg_roles WHERE rolname = ${quoteLiteral(ROLE)}`,
  );
  const flags = role.stdout.trim();
  if (flags === '') {
    log(`creating role ${ROLE}`);
    const r = await psqlAdmin(port, `CREATE ROLE ${ROLE} LOGIN CREATEDB PASSWORD ${quoteLiteral(PASSWORD)}`, { check: false });
    if (!r.ok && !/already exists/.test(r.stderr)) throw new Error(`CREATE ROLE failed:\n${r.stderr}`);
  } else if (flags !== '11') {
    log(`granting LOGIN CREATEDB to role ${ROLE}`);
    await psqlAdmin(port, `ALTER ROLE ${ROLE} LOGIN CREATEDB`);
  }
  // Test runs drop their databases WITH (FORCE); an autovacuum worker in one has no role of its own, so
  // ending it takes pg_signal_backend (without it the drop fails now and then).
  const signals = await psqlAdmin(port, `SELECT pg_has_role(${quoteLiteral(ROLE)}, 'pg_signal_backend', 'MEMBER')::int`);
  if (signals.stdout.trim() !== '1') await psqlAdmin(port, `GRANT pg_signal_backend TO ${ROLE}`);
  const db = await psqlAdmin(port, `SELECT 1 FROM pg_database WHERE datname = ${quoteLiteral(DATABASE)}`);
  if (db.stdout.trim() === '') {
    log(`creating database ${DATABASE}`);
    const r = await psqlAdmin(port, `CREATE DATABASE ${DATABASE} OWNER ${ROLE}`, { check: false });
    if (!r.ok && !/already exists/.test(r.stderr)) throw new Error(`CREATE DATABASE failed:\n${r.stderr}`);
  }
}

/** Make password auth over TCP on 127.0.0.1 work for the role (fix password / pg_hba / listen_addresses). */
async function ensureTcpAuth(cluster, log) {
  const url = ledgerUrl(cluster.port);
  let r = await psqlUrl(url, 'SELECT 1');
  if (r.ok) return;
  const err = r.stderr;
  if (/password authentication failed/.test(err)) {
    log(`resetting the password of role ${ROLE}`);
    await psqlAdmin(cluster.port, `ALTER ROLE ${ROLE} PASSWORD ${quoteLiteral(PASSWORD)}`);
  } else if (/no pg_hba\.conf entry/.test(err)) {
    const hba = (await psqlAdmin(cluster.port, 'SHOW hba_file')).stdout.trim();
    log(`adding a scram-sha-256 rule for ${ROLE} on 127.0.0.1 to ${hba}`);
    const text = readFileSync(hba, 'utf8');
    writeFileSync(hba, `# added by nuban-ledger provisioning\nhost all ${ROLE} 127.0.0.1/32 scram-sha-256\n${text}`);
    await psqlAdmin(cluster.port, 'SELECT pg_reload_conf()');
  } else if (/Connection refused|could not connect/.test(err)) {
    log(`PostgreSQL does not listen on 127.0.0.1:${cluster.port}; setting listen_addresses = 'localhost' and restarting`);
    await psqlAdmin(cluster.port, `ALTER SYSTEM SET listen_addresses = 'localhost'`);
    const rr = await run('pg_ctlcluster', [cluster.version, cluster.cluster, 'restart'], { timeoutMs: 120_000 });
    if (!rr.ok) throw new Error(`pg_ctlcluster restart failed:\n${tail(rr.stderr || rr.stdout)}`);
    await waitReady(cluster.port);
  }
  r = await psqlUrl(url, 'SELECT 1');
  if (!r.ok) throw new Error(`cannot connect to ${url} over TCP with a password:\n${tail(r.stderr, 10)}`);
}

/** A URL the environment gives (`variable`) wins over anything local: returned untouched once its port answers. */
async function urlFromEnvironment(variable, log) {
  const url = process.env[variable];
  if (!url) return null;
  const hostPort = parseUrl(url);
  if (hostPort && !(await isPortOpen(hostPort.port, hostPort.host, 3000))) {
    throw new Error(`${variable} is set but nothing answers on ${hostPort.host}:${hostPort.port}`);
  }
  log(`using ${variable} (${hostPort ? `${hostPort.host}:${hostPort.port}` : 'unparsed'})`);
  return { url, hostPort };
}

export async function ensurePostgres({ log = quietLog } = {}) {
  // 1. An explicit DATABASE_URL wins: do not install or start anything.
  const given = await urlFromEnvironment('DATABASE_URL', log);
  if (given) return { url: given.url };

  // 2. Fast path: the ledger role already connects over TCP on the cluster's port.
  const haveTools = debianToolsPresent();
  let clusters = haveTools ? listClusters() : [];
  const pick = () =>
    clusters.find((c) => c.cluster === 'main' && c.version === installedVersions()[0]) ??
    clusters.find((c) => c.cluster === 'main') ??
    clusters[0];
  let cluster = pick();
  const fastPort = cluster?.port ?? 5432;
  if (cluster?.status === 'online' || (!cluster && (await isPortOpen(fastPort)))) {
    const r = await psqlUrl(ledgerUrl(fastPort), 'SELECT rolcreatedb FROM pg_roles WHERE rolname = current_user');
    if (r.ok && r.stdout.trim() === 't') {
      log(`ready: ${ledgerUrl(fastPort).replace(`:${PASSWORD}@`, ':***@')}`);
      return { url: ledgerUrl(fastPort) };
    }
  }

  if (!isRoot()) {
    throw new Error(
      'PostgreSQL is not set up for the ledger and provisioning it needs root (apt-get, pg_ctlcluster, runuser). ' +
        'Set DATABASE_URL to a database you can use, e.g. DATABASE_URL=postgres://user:pass@127.0.0.1:5432/ledger ' +
        '(the role needs CREATEDB for the test suite), or re-run as root.',
    );
  }

  // 3. Install Debian's postgresql if missing.
  if (!haveTools) {
    await aptInstallPostgres(log);
    clusters = listClusters();
    cluster = pick();
  }

  // 4. A cluster must exist and run.
  ensureSocketDir();
  if (!cluster) {
    const ver = installedVersions()[0];
    if (!ver) throw new Error('postgresql is installed but no server version is found under /usr/lib/postgresql');
    log(`creating cluster ${ver}/main`);
    const r = await run('pg_createcluster', [ver, 'main'], { timeoutMs: 120_000 });
    if (!r.ok && !/already exists/.test(r.stderr)) throw new Error(`pg_createcluster failed:\n${tail(r.stderr || r.stdout)}`);
    clusters = listClusters();
    cluster = pick();
    if (!cluster) throw new Error('pg_createcluster reported success but pg_lsclusters lists no cluster');
  }
  if (cluster.status !== 'online') {
    log(`starting cluster ${cluster.version}/${cluster.cluster} on port ${cluster.port}`);
    const r = await run('pg_ctlcluster', [cluster.version, cluster.cluster, 'start'], { timeoutMs: 120_000 });
    if (!r.ok && !/already running/.test(r.stderr + r.stdout)) {
      throw new Error(
        `pg_ctlcluster ${cluster.version} ${cluster.cluster} start failed:\n${tail(r.stderr || r.stdout)}\n` +
          `(see /var/log/postgresql/postgresql-${cluster.version}-${cluster.cluster}.log)`,
      );
    }
  }
  await waitReady(cluster.port);

  // 5. Role, database, TCP password auth.
  await ensureRoleAndDb(cluster.port, log);
  await ensureTcpAuth(cluster, log);

  const url = ledgerUrl(cluster.port);
  log(`ready: ${url.replace(`:${PASSWORD}@`, ':***@')}`);
  return { url };
}

/** The second local cluster of `START_CLUSTERS=2` (docs/scaling.md#clusters): its Debian name and port. */
export const SECOND_CLUSTER = { name: 'cluster2', port: 5433 };

/** The cells' names when the second server holds tenants too (START_CLUSTERS=2, `bench -- ingest --clusters 2`). */
export const CLUSTER_NAMES = ['main', 'second'];

/** DATABASE_CLUSTERS for a database on the first server and one on the second: the first keeps the name one cluster has. */
export function twoClustersSetting(firstUrl, secondUrl) {
  return `${CLUSTER_NAMES[0]}=${firstUrl},${CLUSTER_NAMES[1]}=${secondUrl}`;
}

/** The second cluster when it already runs with the ledger role (made by START_CLUSTERS=2 or `provision.mjs postgres-second`), else null. */
export async function runningSecondPostgres({ port = SECOND_CLUSTER.port } = {}) {
  if (!(await isPortOpen(port, '127.0.0.1', 1000))) return null;
  const ready = await psqlUrl(ledgerUrl(port), 'SELECT rolcreatedb FROM pg_roles WHERE rolname = current_user');
  return ready.ok && ready.stdout.trim() === 't' ? { url: ledgerUrl(port) } : null;
}

/**
 * A second PostgreSQL server beside the first, as a second cluster of tenants would be: Debian's `pg_createcluster`
 * on its own port, with the same `ledger` role and database. SECOND_DATABASE_URL, when set, wins (checked over TCP).
 *
 *   ensureSecondPostgres({ log }) -> { url }
 */
export async function ensureSecondPostgres({ log = quietLog, name = SECOND_CLUSTER.name, port = SECOND_CLUSTER.port } = {}) {
  const given = await urlFromEnvironment('SECOND_DATABASE_URL', log);
  if (given) return { url: given.url };
  const running = await runningSecondPostgres({ port });
  if (running) return running;
  if (!isRoot() || !debianToolsPresent()) {
    throw new Error(
      `a second PostgreSQL cluster needs Debian's postgresql tools and root (pg_createcluster, pg_ctlcluster); ` +
        `or set SECOND_DATABASE_URL to a database on another server`,
    );
  }
  ensureSocketDir();
  let cluster = listClusters().find((c) => c.cluster === name);
  if (!cluster) {
    const ver = installedVersions()[0];
    log(`creating cluster ${ver}/${name} on port ${port}`);
    const r = await run('pg_createcluster', [ver, name, '--port', String(port)], { timeoutMs: 120_000 });
    if (!r.ok && !/already exists/.test(r.stderr)) throw new Error(`pg_createcluster failed:\n${tail(r.stderr || r.stdout)}`);
    cluster = listClusters().find((c) => c.cluster === name);
    if (!cluster) throw new Error(`pg_createcluster reported success but pg_lsclusters lists no cluster ${name}`);
  }
  if (cluster.status !== 'online') {
    log(`starting cluster ${cluster.version}/${cluster.cluster} on port ${cluster.port}`);
    const r = await run('pg_ctlcluster', [cluster.version, cluster.cluster, 'start'], { timeoutMs: 120_000 });
    if (!r.ok && !/already running/.test(r.stderr + r.stdout))
      throw new Error(`pg_ctlcluster ${cluster.version} ${cluster.cluster} start failed:\n${tail(r.stderr || r.stdout)}`);
  }
  await waitReady(cluster.port);
  await ensureRoleAndDb(cluster.port, log);
  await ensureTcpAuth(cluster, log);
  const url = ledgerUrl(cluster.port);
  log(`ready: ${url.replace(`:${PASSWORD}@`, ':***@')}`);
  return { url };
}

// ---------------------------------------------------------------------------------------------------------------
// A read replica of the local cluster: a streaming hot standby of 5432 on its own port (docs/scaling.md#read-replicas).
//
//   ensureReplica({ log, port }) -> { url, port }
//
// DATABASE_REPLICA_URL, when set, wins: it is returned untouched after a TCP check.

const REPLICA_CLUSTER = 'replica';
export const REPLICA_PORT = 5434;

/** The ledger database on the replica (every database of the primary is there: test runs' too). */
export function replicaUrl(port = REPLICA_PORT) {
  return ledgerUrl(port);
}

/** Whether the replica's WAL receiver streams from the primary now. */
async function replicaStreams(port) {
  const r = await psqlAdmin(port, `SELECT count(*) FROM pg_stat_wal_receiver WHERE status = 'streaming'`, { check: false });
  return r.ok && r.stdout.trim() === '1';
}

/**
 * The settings a hot standby must hold at least as high as its primary (it refuses to start otherwise), read from the
 * primary and written to the replica's conf.d: Debian keeps postgresql.conf outside the data directory, so the base
 * backup does not carry them.
 */
async function standbyMinimums(primaryPort) {
  const names = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];
  const lines = [];
  for (const name of names) lines.push(`${name} = ${(await psqlAdmin(primaryPort, `SHOW ${name}`)).stdout.trim()}`);
  return lines;
}

/** A new replica cluster: an empty Debian cluster on `port`, its data replaced by a base backup of the primary. */
async function createReplicaCluster(primary, port, log) {
  // Debian's pg_hba.conf lets the postgres user replicate over the local socket; a primary whose file was edited gets the line back.
  const hba = (await psqlAdmin(primary.port, 'SHOW hba_file')).stdout.trim();
  const text = readFileSync(hba, 'utf8');
  if (!/^\s*local\s+replication\s+(all|postgres)\s+peer/m.test(text)) {
    log(`adding a local replication rule for postgres to ${hba}`);
    writeFileSync(hba, `# added by nuban-ledger provisioning (read replica)\nlocal replication postgres peer\n${text}`);
    await psqlAdmin(primary.port, 'SELECT pg_reload_conf()');
  }
  log(`creating cluster ${primary.version}/${REPLICA_CLUSTER} on port ${port}`);
  let r = await run('pg_createcluster', [primary.version, REPLICA_CLUSTER, '-p', String(port)], { timeoutMs: 120_000 });
  if (!r.ok) throw new Error(`pg_createcluster failed:\n${tail(r.stderr || r.stdout)}`);
  const cluster = listClusters().find((c) => c.cluster === REPLICA_CLUSTER && c.version === primary.version);
  if (!cluster) throw new Error('pg_createcluster reported success but pg_lsclusters lists no replica cluster');
  const confDir = `/etc/postgresql/${primary.version}/${REPLICA_CLUSTER}/conf.d`;
  mkdirSync(confDir, { recursive: true });
  writeFileSync(
    `${confDir}/replica.conf`,
    [
      '# A hot standby of the local cluster, made by nuban-ledger provisioning.',
      'hot_standby = on',
      // The primary keeps the rows the replica's reads still see, so vacuum on the primary does not cancel them.
      'hot_standby_feedback = on',
      ...(await standbyMinimums(primary.port)),
      '',
    ].join('\n'),
  );
  // The base backup replaces what initdb made; -R writes standby.signal and primary_conninfo (the primary's socket).
  rmSync(cluster.dataDir, { recursive: true, force: true });
  log(`copying the primary (pg_basebackup -R) into ${cluster.dataDir}`);
  r = await run(
    'runuser',
    [
      '-u',
      'postgres',
      '--',
      'pg_basebackup',
      '-h',
      SOCKET_DIR,
      '-p',
      String(primary.port),
      '-D',
      cluster.dataDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ],
    { timeoutMs: 30 * 60_000, cwd: '/' },
  );
  if (!r.ok) throw new Error(`pg_basebackup failed:\n${tail(r.stderr || r.stdout)}`);
  return cluster;
}

async function dropReplicaCluster(cluster, log) {
  log(`dropping cluster ${cluster.version}/${cluster.cluster}, which no longer follows the primary`);
  const r = await run('pg_dropcluster', ['--stop', cluster.version, cluster.cluster], { timeoutMs: 120_000 });
  if (!r.ok) throw new Error(`pg_dropcluster failed:\n${tail(r.stderr || r.stdout)}`);
}

/**
 * A streaming hot-standby replica of the local cluster on `port` (5434), made with Debian's tools and started; it
 * follows every database of the primary. Idempotent and quick once it exists and streams: it is started when down,
 * its replay resumed when a test left it paused, and made again when it no longer follows the primary (its WAL was
 * recycled while it was down).
 */
export async function ensureReplica({ log = quietLog, port = REPLICA_PORT } = {}) {
  const given = await urlFromEnvironment('DATABASE_REPLICA_URL', log);
  if (given) return { url: given.url, port: given.hostPort?.port ?? port };
  // A DATABASE_URL (a test run's database) names the primary: it must be a local Debian cluster's.
  const primaryAt = process.env.DATABASE_URL ? parseUrl(process.env.DATABASE_URL) : null;
  if (primaryAt && !['127.0.0.1', 'localhost', '::1'].includes(primaryAt.host)) {
    throw new Error('DATABASE_URL names a database on another host: set DATABASE_REPLICA_URL to a streaming replica of its cluster');
  }
  if (!isRoot() || !debianToolsPresent()) {
    throw new Error(
      'making a local read replica needs root and Debian PostgreSQL (pg_createcluster, pg_basebackup); or set DATABASE_REPLICA_URL',
    );
  }
  if (!primaryAt) await ensurePostgres({ log });
  const clusters = listClusters();
  const primary = clusters.find((c) => c.cluster !== REPLICA_CLUSTER && c.status === 'online' && c.port === (primaryAt?.port ?? 5432));
  if (!primary) throw new Error(`no running local PostgreSQL cluster on port ${primaryAt?.port ?? 5432} to replicate`);
  let replica = clusters.find((c) => c.cluster === REPLICA_CLUSTER && c.version === primary.version);
  if (replica && replica.port !== port)
    throw new Error(`cluster ${replica.version}/${REPLICA_CLUSTER} exists on port ${replica.port}, not ${port}`);

  for (let attempt = 0; ; attempt += 1) {
    replica ??= await createReplicaCluster(primary, port, log);
    if (replica.status !== 'online') {
      log(`starting cluster ${replica.version}/${REPLICA_CLUSTER} on port ${port}`);
      const r = await run('pg_ctlcluster', [replica.version, REPLICA_CLUSTER, 'start'], { timeoutMs: 120_000 });
      if (!r.ok && !/already running/.test(r.stderr + r.stdout)) {
        throw new Error(
          `pg_ctlcluster ${replica.version} ${REPLICA_CLUSTER} start failed:\n${tail(r.stderr || r.stdout)}\n` +
            `(see /var/log/postgresql/postgresql-${replica.version}-${REPLICA_CLUSTER}.log)`,
        );
      }
    }
    await waitReady(port);
    const inRecovery = (await psqlAdmin(port, 'SELECT pg_is_in_recovery()')).stdout.trim() === 't';
    if (inRecovery && (await psqlAdmin(port, 'SELECT pg_is_wal_replay_paused()')).stdout.trim() === 't') {
      log('resuming the replay a test left paused');
      await psqlAdmin(port, 'SELECT pg_wal_replay_resume()');
    }
    const deadline = Date.now() + 15_000;
    let streams = inRecovery && (await replicaStreams(port));
    while (inRecovery && !streams && Date.now() < deadline) {
      await sleep(250);
      streams = await replicaStreams(port);
    }
    if (streams) break;
    if (attempt > 0) throw new Error(`the replica on port ${port} does not stream from the primary (see its log)`);
    await dropReplicaCluster(replica, log);
    replica = undefined;
  }
  const url = replicaUrl(port);
  log(`replica ready: ${url.replace(`:${PASSWORD}@`, ':***@')}`);
  return { url, port };
}
