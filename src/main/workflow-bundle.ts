import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger';

/** The compiled project's root (dist/..): the bundle lists its sources relative to it. */
const PROJECT_ROOT = path.resolve(__dirname, '../../..');
const WORKFLOWS_PATH = require.resolve('../../workflows');
/** Where `npm run build` writes the bundle: dist/workflow-bundle.js, its manifest beside it. */
export const WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '../../workflow-bundle.js');

interface Manifest {
  /** The files webpack read, relative to the project root (the SDK's package.json stands for everything under node_modules). */
  sources: string[];
  sourcesSha256: string;
}

/** A bundle made with another SDK version is stale too (the image copies node_modules, not package-lock.json). */
const SDK_VERSION_FILE = 'node_modules/@temporalio/workflow/package.json';

const manifestPath = (bundlePath: string): string => bundlePath.replace(/\.js$/, '.json');

/** One digest over the sources' paths and contents (a missing file counts as empty: it changed). */
function digest(sources: string[]): string {
  const hash = createHash('sha256');
  for (const source of sources) {
    const file = path.join(PROJECT_ROOT, source);
    hash
      .update(`${source}\0`)
      .update(existsSync(file) ? readFileSync(file) : Buffer.alloc(0))
      .update('\0');
  }
  return hash.digest('hex');
}

interface Compiler {
  hooks: { done: { tap(name: string, run: (stats: { compilation: { fileDependencies: Iterable<string> } }) => void): void } };
}

/** Bundles the workflows with webpack (what a Worker does at start without one) and writes the bundle and its manifest. */
export async function writeWorkflowBundle(bundlePath = WORKFLOW_BUNDLE_PATH): Promise<void> {
  let read: string[] = [];
  const recordSources = {
    apply: (compiler: Compiler) => compiler.hooks.done.tap('record-sources', (stats) => (read = [...stats.compilation.fileDependencies])),
  };
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
    webpackConfigHook: (config) => ({ ...config, plugins: [...(config.plugins ?? []), recordSources as never] }),
  });
  const ours = read.filter(
    (file) =>
      !file.includes(`${path.sep}node_modules${path.sep}`) && file.startsWith(PROJECT_ROOT) && existsSync(file) && statSync(file).isFile(),
  );
  const sources = [...new Set([...ours.map((file) => path.relative(PROJECT_ROOT, file)), SDK_VERSION_FILE])].sort();
  const manifest: Manifest = { sources, sourcesSha256: digest(sources) };
  writeFileSync(`${bundlePath}.tmp`, code);
  renameSync(`${bundlePath}.tmp`, bundlePath);
  writeFileSync(manifestPath(bundlePath), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Why the prebuilt bundle cannot be used (missing, or built from other sources), or null when it can. */
export function staleness(bundlePath = WORKFLOW_BUNDLE_PATH): string | null {
  if (!existsSync(bundlePath) || !existsSync(manifestPath(bundlePath))) return 'no prebuilt bundle (npm run build makes one)';
  const manifest = JSON.parse(readFileSync(manifestPath(bundlePath), 'utf8')) as Manifest;
  return digest(manifest.sources) === manifest.sourcesSha256 ? null : 'the workflow sources changed since the bundle was built';
}

/**
 * The workflows a Worker runs: the prebuilt bundle when it matches the compiled sources (a start without
 * webpack), else the workflows path (the Worker bundles them at start, as before).
 */
export function workflowSource(logger: Logger, bundlePath = WORKFLOW_BUNDLE_PATH): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  const reason = staleness(bundlePath);
  if (reason === null) {
    logger.info({ bundlePath }, 'workflow bundle: prebuilt');
    return { workflowBundle: { codePath: bundlePath } };
  }
  logger.info({ reason }, 'workflow bundle: bundling at start');
  return { workflowsPath: WORKFLOWS_PATH };
}
