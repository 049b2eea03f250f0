import assert from 'node:assert/strict';
import type { RunRecord } from '../../src/reconciliation/reconciliation-runs.repo';
import { eventually } from './http';
import type { Stack } from './stack';

/** A platform reconciliation run of the stack's cluster over [from, now], started and waited for until it ends well. */
export async function platformRunToEnd(stack: Stack, from: Date): Promise<RunRecord> {
  const { run, job } = await stack.services.reconciliation.requestOperatorRun(null, { from });
  stack.services.starter.kick([job]);
  const done = await eventually(
    async () => {
      const current = await stack.services.reconciliation.find(run.id);
      return current && ['succeeded', 'failed'].includes(current.status) ? current : null;
    },
    { what: 'the platform run' },
  );
  assert.equal(done.status, 'succeeded', done.error ?? '');
  return done;
}
