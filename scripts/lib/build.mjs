// Dependencies and the TypeScript build, for scripts that run before node_modules exist.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.mjs';
import { run } from './util.mjs';

function installedIsCurrent(root) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(marker)) return false;
  return statSync(marker).mtimeMs >= statSync(join(root, 'package-lock.json')).mtimeMs;
}

/** `npm ci` when node_modules is missing or older than package-lock.json. */
export async function ensureDependencies({ log }) {
  const root = repoRoot();
  if (installedIsCurrent(root)) return;
  log('installing dependencies (npm ci)');
  const result = await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, timeoutMs: 15 * 60_000 });
  if (!result.ok) throw new Error(`npm ci failed:\n${result.stderr || result.stdout}`);
}

/** Incremental tsc into dist/ (about a second when nothing changed), then the workflow bundle when its sources changed. */
export async function ensureBuilt({ log }) {
  const root = repoRoot();
  const result = await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, timeoutMs: 10 * 60_000 });
  if (!result.ok) throw new Error(`TypeScript build failed:\n${result.stdout}${result.stderr}`);
  const bundle = await run(process.execPath, [join(root, 'dist', 'src', 'main', 'bundle-workflows.js')], { cwd: root, timeoutMs: 5 * 60_000 });
  if (!bundle.ok) throw new Error(`workflow bundle failed:\n${bundle.stdout}${bundle.stderr}`);
  log('build is up to date');
}

export async function prepareCode({ log }) {
  await ensureDependencies({ log });
  await ensureBuilt({ log });
}
