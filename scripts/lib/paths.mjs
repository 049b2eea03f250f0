// Well-known locations. Plain Node ESM, no dependencies (runs before node_modules exist).
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Root of this clone (the folder holding scripts/). */
export function repoRoot() {
  return resolve(here, '..', '..');
}

/**
 * Per-user cache shared by every clone on the machine (built tools keyed by version).
 * Override with NUBAN_LEDGER_CACHE. Not created here: callers create their own subfolders.
 */
export function cacheRoot() {
  const fromEnv = process.env.NUBAN_LEDGER_CACHE;
  if (fromEnv && fromEnv.trim() !== '') return resolve(fromEnv);
  return join(homedir(), '.cache', 'nuban-ledger');
}

/** `<repo>/.data` (git-ignored), created on demand. */
export function dataDir() {
  const dir = join(repoRoot(), '.data');
  mkdirSync(dir, { recursive: true });
  return dir;
}
