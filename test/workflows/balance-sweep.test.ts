import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { balanceSweepWorkflow } from '../../workflows/balance-sweep.workflow';
import type { BalanceSweepRunRequest, BalanceSweepRunResult } from '../../src/contracts/balance-sweep.contract';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, sharedTimeSkippingEnvironment, testWorker } from '../helpers/temporal';

describe('balanceSweepWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await sharedTimeSkippingEnvironment();
  });

  it("started by hand, sweeps the period of its own start time, and outlasts a failing run (the activity's retries)", async () => {
    const requests: BalanceSweepRunRequest[] = [];
    const calledAtMs: number[] = [];
    let failures = 2;
    const settled: BalanceSweepRunResult = {
      outcome: 'settled',
      period: '2026-12-01',
      reason: null,
      merchantTxRef: 'mtx_00000000000000000000',
      amount: '9500.00',
    };
    const activities = {
      async runBalanceSweep(request: BalanceSweepRunRequest): Promise<BalanceSweepRunResult> {
        requests.push(request);
        calledAtMs.push(await env.currentTimeMs());
        if (failures > 0) {
          failures -= 1;
          throw new Error('database unreachable');
        }
        return settled;
      },
    };
    const taskQueue = `balance-sweep-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    const input = { tenantId: randomUUID(), accountId: randomUUID() };
    const startedAtMs = await env.currentTimeMs();
    const result = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(balanceSweepWorkflow, {
        taskQueue,
        workflowId: `balance-sweep:${randomUUID()}`,
        args: [input],
      });
      return handle.result();
    });
    assert.deepEqual(result, settled);
    assert.equal(requests.length, 3);
    // Every attempt sweeps the same period: the run's start, not the time of a retry (5 s and 10 s later on the skipped clock).
    const first = requests[0]!.scheduledAtMs;
    assert.ok(first >= startedAtMs && first <= calledAtMs[0]!, `${first} is the run's start`);
    assert.ok(calledAtMs[2]! - calledAtMs[0]! >= 15_000);
    assert.deepEqual(
      requests.map((request) => request.scheduledAtMs),
      [first, first, first],
    );
    assert.deepEqual(
      requests.map(({ tenantId, accountId }) => ({ tenantId, accountId })),
      [input, input, input],
    );
  });
});
