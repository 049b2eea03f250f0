import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  scheduledPayoutCancelledSignal,
  scheduledPayoutWorkflowId,
  type ScheduledPayoutEnd,
  type ScheduledPayoutInput,
} from '../../src/contracts/scheduled-payout.contract';
import { scheduledPayoutWorkflow } from '../../workflows/scheduled-payout.workflow';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, sharedTimeSkippingEnvironment, testWorker } from '../helpers/temporal';

describe('scheduledPayoutWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await sharedTimeSkippingEnvironment();
  });

  /** Runs the workflow for a payout `aheadMs` ahead with the start mocked; `during` acts on the run before its result. */
  async function run(aheadMs: number, during: (handle: { signal: () => Promise<void> }) => Promise<void> = async () => undefined) {
    const starts: number[] = [];
    const activities = {
      async startScheduledPayout(): Promise<ScheduledPayoutEnd> {
        starts.push(await env.currentTimeMs());
        return 'started';
      },
    };
    const taskQueue = `scheduled-payout-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    const scheduledForMs = (await env.currentTimeMs()) + aheadMs;
    const input: ScheduledPayoutInput = {
      merchantTxRef: randomUUID(),
      tenantId: randomUUID(),
      scheduledFor: new Date(scheduledForMs).toISOString(),
    };
    const result = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(scheduledPayoutWorkflow, {
        taskQueue,
        workflowId: scheduledPayoutWorkflowId(input.merchantTxRef),
        args: [input],
      });
      await during({ signal: () => handle.signal(scheduledPayoutCancelledSignal) });
      return handle.result();
    });
    return { result, starts, scheduledForMs };
  }

  it('waits until its time (days ahead), then starts the payout once', async function () {
    this.timeout(60_000);
    const { result, starts, scheduledForMs } = await run(30 * 24 * 60 * 60_000);
    assert.equal(result, 'started');
    assert.equal(starts.length, 1);
    assert.ok(starts[0]! >= scheduledForMs, `started ${scheduledForMs - starts[0]!} ms early`);
  });

  it('a cancel signal before its time ends it without starting the payout', async function () {
    this.timeout(60_000);
    const { result, starts } = await run(7 * 24 * 60 * 60_000, async (handle) => {
      await env.sleep(60 * 60_000);
      await handle.signal();
    });
    assert.equal(result, 'cancelled');
    assert.deepEqual(starts, []);
  });

  it('a payout whose time has passed when the run starts is started at once', async function () {
    this.timeout(60_000);
    const { result, starts } = await run(-5_000);
    assert.equal(result, 'started');
    assert.equal(starts.length, 1);
  });
});
