import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../../../src/logger';
import { staleness, workflowSource, writeWorkflowBundle } from '../../../src/main/workflow-bundle';

describe('prebuilt workflow bundle', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'workflow-bundle-'));
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  const manifestPath = path.join(dir, 'workflow-bundle.json');
  const logger = createLogger('silent', 'test');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is missing until built: the worker bundles at start', () => {
    assert.match(staleness(bundlePath) ?? '', /no prebuilt bundle/);
    assert.ok('workflowsPath' in workflowSource(logger, bundlePath));
  });

  it('is used when it matches the compiled workflow sources, which its manifest lists', async () => {
    await writeWorkflowBundle(bundlePath);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { sources: string[] };
    assert.ok(manifest.sources.includes('dist/workflows/payment-confirmation-batch.workflow.js'));
    assert.ok(manifest.sources.includes('node_modules/@temporalio/workflow/package.json'));
    assert.equal(manifest.sources.filter((source) => source.includes('node_modules')).length, 1);
    assert.equal(staleness(bundlePath), null);
    assert.deepEqual(workflowSource(logger, bundlePath), { workflowBundle: { codePath: bundlePath } });
    assert.match(readFileSync(bundlePath, 'utf8'), /paymentConfirmationBatchWorkflow/);
  });

  it('is not used once the sources differ from what it was built from', () => {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { sources: string[]; sourcesSha256: string };
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, sourcesSha256: '0'.repeat(64) }));
    assert.match(staleness(bundlePath) ?? '', /sources changed/);
    assert.ok('workflowsPath' in workflowSource(logger, bundlePath));
  });
});
