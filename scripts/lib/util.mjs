// Small shared helpers for the provisioning scripts.
// Plain Node ESM, no npm dependencies: these run before node_modules exist.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import { delimiter, join } from 'node:path';

export { cacheRoot, dataDir, repoRoot } from './paths.mjs';

/** A logger that prefixes each line, e.g. makeLogger('postgres')('started') -> "[postgres] started" on stderr. */
export function makeLogger(prefix, stream = process.stderr) {
  const log = (...parts) => stream.write(`[${prefix}] ${parts.join(' ')}\n`);
  log.child = (sub) => makeLogger(`${prefix}:${sub}`, stream);
  return log;
}

/** A logger that prints nothing (default when a caller passes none). */
export const quietLog = Object.assign(() => {}, { child: () => quietLog });

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Run a command to completion and capture its output. Never throws unless `check` is true.
 * Returns { code, signal, stdout, stderr, ok, error }.
 * opts: { cwd, env, input, timeoutMs, check, stdio: 'pipe' | 'inherit' }.
 */
export function run(cmd, args = [], opts = {}) {
  const { cwd, env, input, timeoutMs, check = false, stdio = 'pipe' } = opts;
  return new Promise((resolvePromise, reject) => {
    let child;
    try {
      child = spawn(cmd, args, {
        cwd,
        env: env ?? process.env,
        stdio: [input === undefined ? 'ignore' : 'pipe', stdio, stdio],
      });
    } catch (error) {
      const res = { code: null, signal: null, stdout: '', stderr: String(error), ok: false, error };
      return check ? reject(commandError(cmd, args, res)) : resolvePromise(res);
    }
    let stdout = '';
    let stderr = '';
    let timer;
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    if (input !== undefined) child.stdin.end(input);
    if (timeoutMs) {
      timer = setTimeout(() => {
        stderr += `\n(timed out after ${timeoutMs} ms)`;
        child.kill('SIGKILL');
      }, timeoutMs);
    }
    let spawnError;
    child.on('error', (e) => (spawnError = e));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const res = {
        code,
        signal,
        stdout,
        stderr: spawnError ? `${stderr}${spawnError.message}` : stderr,
        ok: code === 0 && !spawnError,
        error: spawnError,
      };
      if (check && !res.ok) reject(commandError(cmd, args, res));
      else resolvePromise(res);
    });
  });
}

function commandError(cmd, args, res) {
  const out = `${res.stderr}\n${res.stdout}`.trim();
  const err = new Error(`command failed (exit ${res.code ?? res.signal}): ${[cmd, ...args].join(' ')}\n${tail(out, 40)}`);
  err.result = res;
  return err;
}

/** Synchronous variant of run() for quick probes. Returns { code, stdout, stderr, ok }. */
export function runSync(cmd, args = [], opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  return {
    code: r.status,
    stdout: r.stdout ?? '',
    stderr: (r.stderr ?? '') + (r.error ? r.error.message : ''),
    ok: r.status === 0 && !r.error,
  };
}

/**
 * Start a long-running process. Returns the ChildProcess.
 * opts: { cwd, env, stdio (default ['ignore', fd, fd] when logFd given), logFd, detached }.
 */
export function spawnProcess(cmd, args = [], opts = {}) {
  const { cwd, env, logFd, detached = false } = opts;
  const stdio = opts.stdio ?? (logFd !== undefined ? ['ignore', logFd, logFd] : ['ignore', 'inherit', 'inherit']);
  return spawn(cmd, args, { cwd, env: env ?? process.env, stdio, detached });
}

/** Does something accept TCP connections on host:port (within timeoutMs)? */
export function isPortOpen(port, host = '127.0.0.1', timeoutMs = 500) {
  return new Promise((resolvePromise) => {
    const socket = net.connect({ port, host });
    const done = (v) => {
      socket.destroy();
      resolvePromise(v);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Wait until host:port accepts TCP connections. Throws after timeoutMs. */
export async function waitForPort(port, host = '127.0.0.1', { timeoutMs = 30_000, intervalMs = 200 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await isPortOpen(port, host)) return;
    if (Date.now() > deadline) throw new Error(`nothing answered on ${host}:${port} within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/** Poll an async predicate until it returns truthy (returned) or the timeout passes (throws). */
export async function waitFor(predicate, { timeoutMs = 30_000, intervalMs = 250, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Whether a TCP port on host can be bound right now. */
export function canBind(port, host = '127.0.0.1') {
  return new Promise((resolvePromise) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolvePromise(false)).listen(port, host, () => srv.close(() => resolvePromise(true)));
  });
}

/**
 * A TCP port that was free a moment ago, for a child process to bind later. Chosen below Linux's
 * ephemeral range (32768 and up): ports the kernel hands out meanwhile (a program binding port 0, as the
 * Temporal dev server does for its HTTP API, or an outgoing connection) cannot take it.
 */
export async function freePort(host = '127.0.0.1') {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canBind(port, host)) return port;
  }
  throw new Error('no free port between 20000 and 32000');
}

/** Absolute path of an executable on PATH, or null. */
export function which(name) {
  if (name.includes('/')) return isExecutable(name) ? name : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    if (isExecutable(p)) return p;
  }
  return null;
}

export function isExecutable(p) {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Last n lines of a string. */
export function tail(text, n = 30) {
  const lines = String(text ?? '')
    .trimEnd()
    .split('\n');
  return lines.slice(-n).join('\n');
}

/** Last n lines of a file ('' if unreadable). */
export function tailFile(path, n = 30) {
  try {
    return existsSync(path) ? tail(readFileSync(path, 'utf8'), n) : '';
  } catch {
    return '';
  }
}

/** Is a pid alive? */
export function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/**
 * Terminate a child process: SIGTERM, then SIGKILL after graceMs. Resolves once it has exited.
 */
export function terminate(child, graceMs = 5000) {
  return new Promise((resolvePromise) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolvePromise();
    const timer = setTimeout(() => {
      try {
        child.kill('SIGKILL');
      } catch {}
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolvePromise();
    });
    try {
      child.kill('SIGTERM');
    } catch {
      clearTimeout(timer);
      resolvePromise();
    }
  });
}
