// `npm run build` (after tsc): the workflow bundle the worker loads instead of running webpack at start.
import { staleness, WORKFLOW_BUNDLE_PATH, writeWorkflowBundle } from './workflow-bundle';

async function main(): Promise<void> {
  if (staleness() === null) {
    process.stdout.write(`workflow bundle is up to date (${WORKFLOW_BUNDLE_PATH})\n`);
    return;
  }
  const started = Date.now();
  await writeWorkflowBundle();
  process.stdout.write(`wrote ${WORKFLOW_BUNDLE_PATH} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
