import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { DeliveryAttemptResult } from '../../src/temporal/payloads';
import { webhookDeliveryWorkflow } from '../../workflows/webhookDelivery.workflow';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, testWorker, timeSkippingEnvironment } from '../helpers/temporal';

const MINUTE = 60_000;
const SPEC_SCHEDULE = [2, 5, 11, 24, 53].map((minutes) => minutes * MINUTE);

interface Recorded {
  attemptNo: number;
  ok: boolean;
  retryInMs: number | null;
}

describe('webhookDeliveryWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await timeSkippingEnvironment();
  });
  after(() => env?.teardown());

  /** Runs a delivery whose n-th HTTP attempt succeeds when `succeedsAt` says so; returns when each attempt ran. */
  async function deliver(options: { succeedsAt?: number; retryScheduleMs?: number[]; maxAttempts?: number }) {
    const attemptTimes: number[] = [];
    const recorded: Recorded[] = [];
    const activities = {
      async sendWebhook(): Promise<DeliveryAttemptResult> {
        // The environment's clock: the (skipped) time the workflow sees.
        attemptTimes.push(await env.currentTimeMs());
        const ok = attemptTimes.length === options.succeedsAt;
        return { ok, statusCode: ok ? 200 : 503, error: ok ? null : 'HTTP 503', durationMs: 3, attemptedAt: new Date().toISOString() };
      },
      async recordWebhookAttempt(_deliveryId: string, attemptNo: number, result: DeliveryAttemptResult, retryInMs: number | null): Promise<void> {
        recorded.push({ attemptNo, ok: result.ok, retryInMs });
      },
    };
    const taskQueue = `delivery-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    const outcome = await worker.runUntil(
      env.client.workflow.execute(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId: `webhook-delivery:${randomUUID()}`,
        args: [{ deliveryId: randomUUID(), retryScheduleMs: options.retryScheduleMs ?? SPEC_SCHEDULE, maxAttempts: options.maxAttempts ?? 5 }],
      }),
    );
    const minutes = attemptTimes.map((time) => Math.round((time - attemptTimes[0]!) / MINUTE));
    return { outcome, minutes, recorded };
  }

  it('attempts at minutes 0, 2, 7, 18 and 42, then dead-letters after the fifth failure', async () => {
    const { outcome, minutes, recorded } = await deliver({});
    assert.equal(outcome, 'dead_letter');
    assert.deepEqual(minutes, [0, 2, 7, 18, 42]);
    assert.deepEqual(
      recorded.map((entry) => entry.retryInMs),
      [2 * MINUTE, 5 * MINUTE, 11 * MINUTE, 24 * MINUTE, null],
    );
  });

  it('stops the schedule when attempt 3 succeeds', async () => {
    const { outcome, minutes, recorded } = await deliver({ succeedsAt: 3 });
    assert.equal(outcome, 'succeeded');
    assert.deepEqual(minutes, [0, 2, 7]);
    assert.deepEqual(recorded.at(-1), { attemptNo: 3, ok: true, retryInMs: null });
  });

  it('honours a changed WEBHOOK_RETRY_SCHEDULE, repeating its last delay', async () => {
    const { outcome, minutes } = await deliver({ retryScheduleMs: [1 * MINUTE, 3 * MINUTE], maxAttempts: 4 });
    assert.equal(outcome, 'dead_letter');
    assert.deepEqual(minutes, [0, 1, 4, 7]);
  });

  it('uses the fifth delay, 53 minutes, only when the attempt limit is raised (and skips it in seconds)', async () => {
    const { outcome, minutes } = await deliver({ maxAttempts: 6 });
    assert.equal(outcome, 'dead_letter');
    assert.deepEqual(minutes, [0, 2, 7, 18, 42, 95]);
  });
});
