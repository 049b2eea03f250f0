import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowFailedError } from '@temporalio/client';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dynamicAccountReturnsWorkflow } from '../../workflows/dynamic-account-returns.workflow';
import type { DynamicAccountReturnsResult } from '../../src/contracts/dynamic-account-returns.contract';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, sharedTimeSkippingEnvironment, testWorker } from '../helpers/temporal';

describe('dynamicAccountReturnsWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await sharedTimeSkippingEnvironment();
  });

  /** Runs the workflow once against `returnMismatchedPayments`, as its Schedule starts it. */
  async function run(returnMismatchedPayments: () => Promise<DynamicAccountReturnsResult>): Promise<DynamicAccountReturnsResult> {
    const taskQueue = `dynamic-account-returns-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, { returnMismatchedPayments });
    return worker.runUntil(
      env.client.workflow.execute(dynamicAccountReturnsWorkflow, { taskQueue, workflowId: `dynamic-account-returns:${randomUUID()}` }),
    );
  }

  it("makes the returns in one activity and reports what it found; an attempt that failed (a worker's crash) is retried", async () => {
    let attempts = 0;
    const result = await run(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('the worker died mid-run');
      return { found: 2 };
    });
    assert.deepEqual(result, { found: 2 });
    assert.equal(attempts, 2);
  });

  it('gives up after three attempts: the run fails, and the next run of the Schedule starts anew', async () => {
    let attempts = 0;
    await assert.rejects(
      run(async () => {
        attempts += 1;
        throw new Error('database unreachable');
      }),
      WorkflowFailedError,
    );
    assert.equal(attempts, 3);
  });
});
