// Starting the project's own processes (API, worker, sandbox) from the compiled build.
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from './paths.mjs';
import { run, spawnProcess } from './util.mjs';

const ENTRYPOINTS = {
  api: 'dist/src/main/api.js',
  worker: 'dist/src/main/worker.js',
  sandbox: 'dist/src/main/sandbox.js',
  cli: 'dist/src/main/cli.js',
};

const PINO_WARN = 40;

/**
 * Spawns one of our processes. Every log line goes to `<logDir>/<label>.log`; warnings and errors are
 * also echoed to the console, prefixed with the label (the process name unless told: `api-2` for a second host's API).
 */
export function startService(name, { env, logDir, echo = true, label = name }) {
  mkdirSync(logDir, { recursive: true });
  const file = createWriteStream(join(logDir, `${label}.log`), { flags: 'a' });
  // CPU_PROFILE_DIR=<dir>: a V8 CPU profile of each process (each copy of a group too) in <dir>/<name>/, written when it exits.
  const profiling = env.CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${join(env.CPU_PROFILE_DIR, name)}`] : [];
  const child = spawnProcess(process.execPath, [...profiling, '--enable-source-maps', join(repoRoot(), ENTRYPOINTS[name])], {
    cwd: repoRoot(),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      file.write(`${line}\n`);
      if (!echo) return;
      let level = PINO_WARN;
      try {
        level = JSON.parse(line).level ?? PINO_WARN;
      } catch {
        // not JSON: always worth showing
      }
      if (level >= PINO_WARN) process.stderr.write(`[${label}] ${line}\n`);
    });
  }
  child.on('exit', () => file.end());
  return child;
}

/** Runs a CLI command to completion with the given environment (and stdin, when given); returns its stdout. */
export async function runCli(args, { env, input }) {
  const result = await run(process.execPath, [join(repoRoot(), ENTRYPOINTS.cli), ...args], {
    cwd: repoRoot(),
    env,
    input,
    timeoutMs: 120_000,
  });
  if (!result.ok) throw new Error(`cli ${args.join(' ')} failed:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** Stops children with SIGTERM, then SIGKILL after `graceMs`. */
export async function stopAll(children, graceMs = 10_000) {
  await Promise.all(
    children
      .filter((child) => child.exitCode === null && child.signalCode === null)
      .map(
        (child) =>
          new Promise((resolve) => {
            const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
  );
}
