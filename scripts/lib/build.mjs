// Dependencies and the TypeScript build, for scripts that run before node_modules exist.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from './paths.mjs';
import { run } from './util.mjs';

/** The TypeScript client's package: its own dependencies (the type generator) and its own build into sdk/dist. */
const SDK = 'sdk';

function installedIsCurrent(root) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(marker)) return false;
  return statSync(marker).mtimeMs >= statSync(join(root, 'package-lock.json')).mtimeMs;
}

/** `npm ci` when node_modules is missing or older than package-lock.json, for the service and for sdk/. */
export async function ensureDependencies({ log }) {
  const root = repoRoot();
  for (const folder of [root, join(root, SDK)]) {
    if (installedIsCurrent(folder)) continue;
    log(`installing dependencies (npm ci in ${folder === root ? 'the repository' : `${SDK}/`})`);
    const result = await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: folder, timeoutMs: 15 * 60_000 });
    if (!result.ok) throw new Error(`npm ci failed:\n${result.stderr || result.stdout}`);
  }
}

/** The folders tsc compiles into dist/ (the dashboard is built apart, into dist/dashboard). */
const COMPILED_ROOTS = ['src', 'workflows', 'activities', 'migrations', 'migrations-control', 'test', 'bench'];

/**
 * Removes compiled files whose source is gone: tsc never deletes them, and a stale migration or test
 * left in dist/ after a rename would still be run (knex and mocha read dist/).
 */
export function pruneOrphans(root) {
  const walk = (relative) => {
    const compiled = join(root, 'dist', relative);
    if (!existsSync(compiled)) return;
    for (const entry of readdirSync(compiled, { withFileTypes: true })) {
      const path = join(relative, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.js(\.map)?$/.test(entry.name) && !existsSync(join(root, path.replace(/\.js(\.map)?$/, '.ts'))))
        rmSync(join(root, 'dist', path));
    }
  };
  for (const folder of COMPILED_ROOTS) walk(folder);
}

/**
 * The client package (sdk/) into sdk/dist with its own TypeScript, as `npm pack` would build it; the tests
 * import it from there. Rebuilt from clean when its sources changed, so a removed file leaves nothing behind.
 */
export async function ensureSdkBuilt({ log }) {
  const sdk = join(repoRoot(), SDK);
  // Outside sdk/dist, which `npm pack` ships whole.
  const stamp = join(repoRoot(), 'dist', '.sdk-built');
  const inputs = Math.max(
    newestMtime(join(sdk, 'src')),
    newestMtime(join(sdk, 'tsconfig.json')),
    newestMtime(join(sdk, 'package-lock.json')),
  );
  if (existsSync(join(sdk, 'dist', 'index.js')) && existsSync(stamp) && statSync(stamp).mtimeMs >= inputs) return;
  rmSync(join(sdk, 'dist'), { recursive: true, force: true });
  const result = await run(process.execPath, [join(sdk, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
    cwd: sdk,
    timeoutMs: 5 * 60_000,
  });
  if (!result.ok) throw new Error(`TypeScript client build failed:\n${result.stdout}${result.stderr}`);
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  log('TypeScript client built into sdk/dist');
}

/** Incremental tsc into dist/ (about a second when nothing changed), then the workflow bundle when its sources changed. */
export async function ensureBuilt({ log }) {
  const root = repoRoot();
  const result = await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
    cwd: root,
    timeoutMs: 10 * 60_000,
  });
  if (!result.ok) throw new Error(`TypeScript build failed:\n${result.stdout}${result.stderr}`);
  pruneOrphans(root);
  const bundle = await run(process.execPath, [join(root, 'dist', 'src', 'main', 'bundle-workflows.js')], {
    cwd: root,
    timeoutMs: 5 * 60_000,
  });
  if (!bundle.ok) throw new Error(`workflow bundle failed:\n${bundle.stdout}${bundle.stderr}`);
  log('build is up to date');
}

/** Newest modification time of any file under `path` (0 when it does not exist). */
function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

/**
 * The dashboard (dashboard/, Preact + Vite) into dist/dashboard: type-checked against the server's
 * schemas (its API types come from them), then bundled. Skipped when nothing it reads changed since.
 */
export async function ensureDashboardBuilt({ log, force = false }) {
  const root = repoRoot();
  const stamp = join(root, 'dist', 'dashboard', '.built');
  const inputs = Math.max(
    newestMtime(join(root, 'dashboard')),
    newestMtime(join(root, 'src')),
    newestMtime(join(root, 'package-lock.json')),
  );
  if (!force && existsSync(stamp) && statSync(stamp).mtimeMs >= inputs) return;
  const typecheck = await run(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join('dashboard', 'tsconfig.json')],
    { cwd: root, timeoutMs: 5 * 60_000 },
  );
  if (!typecheck.ok) throw new Error(`Dashboard type check failed:\n${typecheck.stdout}${typecheck.stderr}`);
  const bundle = await run(
    process.execPath,
    [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', join('dashboard', 'vite.config.mjs')],
    { cwd: root, timeoutMs: 5 * 60_000 },
  );
  if (!bundle.ok) throw new Error(`Dashboard build failed:\n${bundle.stdout}${bundle.stderr}`);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  log('dashboard built into dist/dashboard');
}

export async function prepareCode({ log }) {
  await ensureDependencies({ log });
  // Before the service's build: its tests import the client's built types.
  await ensureSdkBuilt({ log });
  await ensureBuilt({ log });
  await ensureDashboardBuilt({ log });
}
