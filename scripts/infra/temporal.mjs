// Temporal for local runs and tests: the `temporal` CLI (built from the Go module proxy when
// missing) and its dev server. Plain Node ESM, no npm dependencies.
//
//   ensureTemporalCli({ log }) -> path
//   ensureTemporalServer({ log }) -> { address, uiUrl, startedHere, stop }      npm start's shared server
//   startIsolatedTemporal({ log, port?, dbFile? }) -> { address, port, stop, … }  a server of the caller's own
//   ensureSearchAttributes({ log, address, cli }) -> void
import {
  existsSync,
  mkdirSync,
  openSync,
  closeSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  unlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheRoot, dataDir, repoRoot } from '../lib/paths.mjs';
import {
  freePort,
  isExecutable,
  isPortOpen,
  pidAlive,
  quietLog,
  run,
  runSync,
  sleep,
  spawnProcess,
  tail,
  tailFile,
  terminate,
  which,
} from '../lib/util.mjs';

/** Custom search attributes every server the project uses must have (the batch confirmation's two lists are KeywordList). */
export const SEARCH_ATTRIBUTES = Object.freeze({
  TenantId: 'Keyword',
  AccountRef: 'Keyword',
  MerchantTxRef: 'Keyword',
  SettlementStatus: 'Keyword',
  ProviderTxnRefs: 'KeywordList',
  AccountRefs: 'KeywordList',
  ReconciliationStatus: 'Keyword',
});

export const DEFAULT_PORT = 7233;
export const DEFAULT_UI_PORT = 8233;
const NAMESPACE = 'default';

/** { module, version } from tools/temporal-cli.json. */
export function temporalCliSpec() {
  const spec = JSON.parse(readFileSync(join(repoRoot(), 'tools', 'temporal-cli.json'), 'utf8'));
  if (!spec.module || !spec.version) throw new Error('tools/temporal-cli.json needs "module" and "version"');
  return spec;
}

export function cachedCliPath(version = temporalCliSpec().version) {
  return join(cacheRoot(), `temporal-${version}`, 'temporal');
}

// ---------------------------------------------------------------------------------------------
// CLI

/** pids of running `go build` processes that build the temporal CLI (this clone's or another's). */
function runningTemporalBuilds(modulePath) {
  const r = runSync('pgrep', ['-f', 'go build']);
  if (!r.ok) return [];
  const modDir = modulePath.split('/').pop();
  return r.stdout
    .split('\n')
    .map(Number)
    .filter((pid) => pid && pid !== process.pid)
    .filter((pid) => {
      let cmd = '';
      let cwd = '';
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {}
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {}
      if (!/(^|\/)go build /.test(cmd)) return false;
      return /temporal/.test(cmd) || cwd.includes(modulePath) || cwd.includes(`/${modDir}@`);
    });
}

async function waitForBuilds(pids, bin, log, timeoutMs = 45 * 60_000) {
  log(
    `a build of the temporal CLI is already running (pid ${pids.join(', ')}); waiting for it (log: /tmp/temporal-build.log if started by hand)`,
  );
  const started = Date.now();
  let lastNote = started;
  while (pids.some(pidAlive)) {
    if (Date.now() - started > timeoutMs) throw new Error(`gave up waiting for the running temporal CLI build (pids ${pids.join(', ')})`);
    if (Date.now() - lastNote > 30_000) {
      log(`still waiting for the temporal CLI build (${Math.round((Date.now() - started) / 1000)} s)`);
      lastNote = Date.now();
    }
    await sleep(2000);
  }
  return isExecutable(bin);
}

/** A directory lock (mkdir is atomic); stale when its owner pid is dead. Returns a release function or null. */
function tryLock(lockDir) {
  try {
    mkdirSync(lockDir);
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
    let owner = 0;
    try {
      owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    } catch {}
    const ageMs = (() => {
      try {
        return Date.now() - statSync(lockDir).mtimeMs;
      } catch {
        return 0;
      }
    })();
    if ((owner && !pidAlive(owner)) || (!owner && ageMs > 60_000)) {
      rmSync(lockDir, { recursive: true, force: true });
      return tryLock(lockDir);
    }
    return null;
  }
  writeFileSync(join(lockDir, 'pid'), String(process.pid));
  return () => rmSync(lockDir, { recursive: true, force: true });
}

function goVersionOk(goBin, required) {
  const r = runSync(goBin, ['env', 'GOVERSION']);
  const have = (r.stdout.trim().match(/go(\d+)\.(\d+)/) ?? []).slice(1).map(Number);
  const need = (String(required).match(/(\d+)\.(\d+)/) ?? []).slice(1).map(Number);
  if (have.length < 2 || need.length < 2) return true;
  return have[0] > need[0] || (have[0] === need[0] && have[1] >= need[1]);
}

async function buildCli({ module, version }, bin, log) {
  const go = which('go');
  if (!go) {
    throw new Error(
      'the temporal CLI is not installed and Go is missing to build it. Install Go (https://go.dev/dl or apt-get install golang-go), ' +
        'or set TEMPORAL_CLI to a temporal binary, or TEMPORAL_ADDRESS to a running server.',
    );
  }
  const outDir = join(bin, '..');
  mkdirSync(outDir, { recursive: true });
  const env = { ...process.env, GOFLAGS: [process.env.GOFLAGS, '-buildvcs=false'].filter(Boolean).join(' ') };

  log(
    `building the temporal CLI ${module}@${version} from the Go module proxy: the first build downloads several hundred MB and takes minutes (~3-5 min on 2 cores); later runs reuse ${bin}`,
  );
  const dl = await run(go, ['mod', 'download', '-json', `${module}@${version}`], { env, timeoutMs: 30 * 60_000 });
  let info;
  try {
    info = JSON.parse(dl.stdout);
  } catch {}
  if (!dl.ok || !info?.Dir) throw new Error(`go mod download ${module}@${version} failed:\n${tail(dl.stderr || dl.stdout, 30)}`);

  const goMod = readFileSync(join(info.Dir, 'go.mod'), 'utf8');
  const needGo = goMod.match(/^go\s+(\S+)/m)?.[1];
  if (needGo && !goVersionOk(go, needGo)) {
    log(`go ${needGo} is required; letting the go command fetch that toolchain (GOTOOLCHAIN=auto)`);
    env.GOTOOLCHAIN = 'auto';
  }

  const tmp = `${bin}.tmp`;
  rmSync(tmp, { force: true });
  const bareVersion = version.replace(/^v/, '');
  const started = Date.now();
  // Built inside the module (it is the main module, so its replace directives apply). The module
  // cache is read-only; the build writes only GOCACHE and -o.
  const b = await run(
    go,
    ['build', '-trimpath', '-ldflags', `-s -w -X ${module}/temporalcli.Version=${bareVersion}`, '-o', tmp, './cmd/temporal'],
    { cwd: info.Dir, env, timeoutMs: 60 * 60_000 },
  );
  if (!b.ok || !isExecutable(tmp)) {
    rmSync(tmp, { force: true });
    throw new Error(`go build of the temporal CLI failed:\n${tail(b.stderr || b.stdout, 40)}`);
  }
  renameSync(tmp, bin);
  log(`built ${bin} in ${Math.round((Date.now() - started) / 1000)} s`);
}

export async function ensureTemporalCli({ log = quietLog } = {}) {
  if (process.env.TEMPORAL_CLI) {
    const p = process.env.TEMPORAL_CLI;
    if (!isExecutable(p)) throw new Error(`TEMPORAL_CLI=${p} is not an executable file`);
    return p;
  }
  const onPath = which('temporal');
  if (onPath) return onPath;

  const spec = temporalCliSpec();
  const bin = cachedCliPath(spec.version);
  if (isExecutable(bin)) return bin;

  mkdirSync(join(bin, '..'), { recursive: true });
  const lockDir = `${bin}.lock`;
  for (;;) {
    const pids = runningTemporalBuilds(spec.module);
    if (pids.length > 0) {
      if (await waitForBuilds(pids, bin, log)) return bin;
      continue; // that build failed or built elsewhere: build ourselves (after re-checking)
    }
    const release = tryLock(lockDir);
    if (!release) {
      log('another process holds the temporal CLI build lock; waiting');
      await sleep(2000);
      if (isExecutable(bin)) return bin;
      continue;
    }
    try {
      if (isExecutable(bin)) return bin;
      await buildCli(spec, bin, log);
      return bin;
    } finally {
      release();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Server

/** Does a Temporal frontend at address serve the default namespace? */
async function serves(cli, address) {
  const r = await run(cli, ['operator', 'namespace', 'describe', NAMESPACE, '--address', address, '--command-timeout', '5s'], {
    timeoutMs: 10_000,
  });
  return r.ok;
}

async function listSearchAttributeNames(cli, address) {
  const list = await run(
    cli,
    ['operator', 'search-attribute', 'list', '--namespace', NAMESPACE, '--address', address, '-o', 'json', '--command-timeout', '10s'],
    { timeoutMs: 20_000 },
  );
  if (!list.ok) throw new Error(`cannot list search attributes on ${address}:\n${tail(list.stderr || list.stdout, 10)}`);
  try {
    const parsed = JSON.parse(list.stdout);
    return new Set([...Object.keys(parsed.systemAttributes ?? {}), ...Object.keys(parsed.customAttributes ?? {})]);
  } catch {
    return new Set([...list.stdout.matchAll(/"([A-Za-z_][A-Za-z0-9_]*)"\s*:/g)].map((m) => m[1]));
  }
}

/** Register any of SEARCH_ATTRIBUTES missing on the server at address (idempotent). */
export async function ensureSearchAttributes({ log = quietLog, address, cli, attributes = SEARCH_ATTRIBUTES } = {}) {
  cli ??= await ensureTemporalCli({ log });
  const existing = await listSearchAttributeNames(cli, address);
  const missing = Object.entries(attributes).filter(([name]) => !existing.has(name));
  if (missing.length === 0) return;
  // One --type per --name: the CLI pairs them by position (a single --type registers only the first name).
  log(`registering search attributes ${missing.map(([n, t]) => `${n}=${t}`).join(', ')} on ${address}`);
  const r = await run(
    cli,
    [
      'operator',
      'search-attribute',
      'create',
      '--namespace',
      NAMESPACE,
      '--address',
      address,
      '--command-timeout',
      '20s',
      ...missing.flatMap(([name, type]) => ['--name', name, '--type', type]),
    ],
    { timeoutMs: 30_000 },
  );
  if (!r.ok && !/already exists/i.test(r.stderr)) {
    throw new Error(
      `cannot create search attributes ${missing.map(([n]) => n).join(', ')} on ${address}:\n${tail(r.stderr || r.stdout, 10)}`,
    );
  }
  const after = await listSearchAttributeNames(cli, address);
  const still = missing.filter(([name]) => !after.has(name)).map(([n]) => n);
  if (still.length) throw new Error(`search attributes ${still.join(', ')} are still missing on ${address} after creating them`);
}

function pidFilePath() {
  return join(dataDir(), 'temporal.pid');
}

/** A dev server this repo started earlier (pid file) that is still alive: wait for it to exit or to serve. */
async function previousServerPid() {
  const pidFile = pidFilePath();
  if (!existsSync(pidFile)) return 0;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  let cmd = '';
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {}
  if (pid && pidAlive(pid) && cmd.includes('start-dev')) return pid;
  try {
    unlinkSync(pidFile);
  } catch {}
  return 0;
}

/** The last lines a log file got since byte offset `from` (this run's output only). */
function logTailSince(logFile, from = 0, n = 40) {
  try {
    const buf = readFileSync(logFile);
    return tail(buf.subarray(Math.min(from, buf.length)).toString('utf8'), n) || '(empty)';
  } catch {
    return tailFile(logFile, n);
  }
}

async function waitUntilServing({ cli, address, child, logFile, logOffset = 0, timeoutMs = 90_000 }) {
  const deadline = Date.now() + timeoutMs;
  let exited = null;
  const onExit = (code, signal) => (exited = { code, signal });
  child?.once('exit', onExit);
  try {
    while (Date.now() < deadline) {
      if (exited) {
        throw new Error(
          `temporal server start-dev exited (${exited.code ?? exited.signal}) before serving on ${address}. Log ${logFile}:\n${logTailSince(logFile, logOffset)}`,
        );
      }
      if (await serves(cli, address)) return;
      await sleep(300);
    }
  } finally {
    child?.off('exit', onExit);
  }
  throw new Error(
    `Temporal dev server did not serve on ${address} within ${timeoutMs / 1000} s. Log ${logFile}:\n${logTailSince(logFile, logOffset)}`,
  );
}

const noop = async () => {};

/**
 * Spawns a dev server and waits until it serves. `dbFile` null keeps it in memory; `uiPort` null runs it
 * headless. Returns { address, uiUrl, stop, pid, logFile }.
 */
async function spawnDevServer({ log, cli, port, uiPort, dbFile, logFile, pidFile }) {
  const saArgs = Object.entries(SEARCH_ATTRIBUTES).flatMap(([k, v]) => ['--search-attribute', `${k}=${v}`]);
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    ...(uiPort ? ['--ui-port', String(uiPort)] : ['--headless']),
    // A file-backed server writes every workflow step to SQLite: in WAL mode with synchronous=NORMAL a
    // commit does not wait for fsync, and a process that dies (or is stopped) loses nothing it committed.
    ...(dbFile ? ['--db-filename', dbFile, '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'] : []),
    '--namespace',
    NAMESPACE,
    '--log-level',
    'warn',
    ...saArgs,
  ];
  const address = `127.0.0.1:${port}`;
  const uiUrl = uiPort ? `http://localhost:${uiPort}` : null;

  log(`starting the Temporal dev server on ${address}${uiUrl ? ` (UI ${uiUrl})` : ''}, log ${logFile}`);
  let logOffset = 0;
  try {
    logOffset = statSync(logFile).size;
  } catch {}
  const fd = openSync(logFile, 'a');
  const child = spawnProcess(cli, args, { logFd: fd, cwd: repoRoot() });
  closeSync(fd);
  if (pidFile) writeFileSync(pidFile, String(child.pid));

  // Do not leave a server behind if the caller exits without stop().
  const killOnExit = () => {
    try {
      child.kill('SIGTERM');
    } catch {}
  };
  process.once('exit', killOnExit);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', killOnExit);
    await terminate(child, 5000);
    if (pidFile) {
      try {
        if (readFileSync(pidFile, 'utf8').trim() === String(child.pid)) unlinkSync(pidFile);
      } catch {}
    }
  };

  try {
    await waitUntilServing({ cli, address, child, logFile, logOffset });
    // --search-attribute only applies when the namespace is created: a persisted db made before an
    // attribute was added would silently lack it, so register anything missing.
    await ensureSearchAttributes({ log, address, cli });
  } catch (e) {
    await stop();
    throw e;
  }
  log(`Temporal dev server ready on ${address} (pid ${child.pid})`);
  return { address, uiUrl, stop, pid: child.pid, logFile };
}

/**
 * `npm start`'s server: TEMPORAL_ADDRESS when set, else the shared dev server on 127.0.0.1:7233 with UI on
 * 8233 (reused when one answers there, else started, persisted in <repo>/.data/temporal.db). Never for
 * tests: a test run writes only into a server it started (startIsolatedTemporal), so a developer's
 * server is neither written into nor able to fail the run by stopping.
 */
export async function ensureTemporalServer({ log = quietLog } = {}) {
  if (process.env.TEMPORAL_ADDRESS) {
    log(`using TEMPORAL_ADDRESS=${process.env.TEMPORAL_ADDRESS}`);
    return { address: process.env.TEMPORAL_ADDRESS, uiUrl: process.env.TEMPORAL_UI_URL || null, startedHere: false, stop: noop };
  }

  const sharedAddress = `127.0.0.1:${DEFAULT_PORT}`;
  // A server this repo started a moment ago may still be shutting down (it holds the SQLite file).
  const prev = await previousServerPid();
  if (prev && !(await isPortOpen(DEFAULT_PORT))) {
    log(`waiting for the previous dev server (pid ${prev}) to finish exiting or start serving`);
    const until = Date.now() + 15_000;
    while (Date.now() < until && pidAlive(prev) && !(await isPortOpen(DEFAULT_PORT))) await sleep(200);
  }

  if (await isPortOpen(DEFAULT_PORT)) {
    const cli = await ensureTemporalCli({ log });
    await waitUntilServing({ cli, address: sharedAddress, child: null, logFile: '(not started here)', timeoutMs: 60_000 });
    await ensureSearchAttributes({ log, address: sharedAddress, cli });
    log(`reusing the Temporal server on ${sharedAddress}`);
    return { address: sharedAddress, uiUrl: `http://localhost:${DEFAULT_UI_PORT}`, startedHere: false, stop: noop };
  }

  const cli = await ensureTemporalCli({ log });
  try {
    const server = await spawnDevServer({
      log,
      cli,
      port: DEFAULT_PORT,
      uiPort: DEFAULT_UI_PORT,
      dbFile: join(dataDir(), 'temporal.db'),
      logFile: join(dataDir(), 'temporal.log'),
      pidFile: pidFilePath(),
    });
    return { ...server, startedHere: true };
  } catch (e) {
    // Another clone may have started the shared server on 7233 at the same moment: use theirs.
    if ((await isPortOpen(DEFAULT_PORT)) && (await serves(cli, sharedAddress))) {
      await ensureSearchAttributes({ log, address: sharedAddress, cli });
      log(`another process started the Temporal server on ${sharedAddress} first; reusing it`);
      return { address: sharedAddress, uiUrl: `http://localhost:${DEFAULT_UI_PORT}`, startedHere: false, stop: noop };
    }
    throw e;
  }
}

/**
 * A server of the caller's own, never shared and never reused, headless, on a free port (never npm start's
 * 7233 or 8233): for `npm test`, benchmarks and fault tests that stop it or load it. In memory unless
 * `dbFile` is given; pass `port` and `dbFile` to restart one with its state.
 */
export async function startIsolatedTemporal({ log = quietLog, port, dbFile = null } = {}) {
  if (port === DEFAULT_PORT || port === DEFAULT_UI_PORT) {
    throw new Error(`startIsolatedTemporal: port ${port} is npm start's shared server's; a server of one's own takes a free port`);
  }
  const cli = await ensureTemporalCli({ log });
  const chosen = port ?? (await freePort());
  const server = await spawnDevServer({
    log,
    cli,
    port: chosen,
    uiPort: null,
    dbFile,
    logFile: join(tmpdir(), `nuban-ledger-temporal-isolated-${chosen}.log`),
  });
  return { ...server, port: chosen };
}
