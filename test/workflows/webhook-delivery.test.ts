import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { deliveryStatusQuery, webhookDeliveryWorkflow } from '../../workflows/webhook-delivery.workflow';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, sharedTimeSkippingEnvironment, testWorker } from '../helpers/temporal';
import { timerDurationsMs } from '../helpers/workflow-clock';
import type { DeliveryAttemptResult } from '../../src/contracts/webhook-delivery.contract';

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
    env = await sharedTimeSkippingEnvironment();
  });

  /**
   * Runs a delivery whose n-th HTTP attempt succeeds when `succeedsAt` says so; returns how many attempts ran
   * and the pauses between them (the workflow's timers, from its history). `crashes` sends throw first (the database down), which the activity's retry absorbs.
   */
  async function deliver(options: { succeedsAt?: number; retryScheduleMs?: number[]; maxAttempts?: number; crashes?: number }) {
    let attempts = 0;
    const recorded: Recorded[] = [];
    let crashes = options.crashes ?? 0;
    const activities = {
      async sendWebhook(): Promise<DeliveryAttemptResult> {
        if (crashes > 0) {
          crashes -= 1;
          throw new Error('database unreachable');
        }
        attempts += 1;
        const ok = attempts === options.succeedsAt;
        return { ok, statusCode: ok ? 200 : 503, error: ok ? null : 'HTTP 503', durationMs: 3, attemptedAt: new Date().toISOString() };
      },
      async recordWebhookAttempt(
        _deliveryId: string,
        attemptNo: number,
        result: DeliveryAttemptResult,
        retryInMs: number | null,
      ): Promise<void> {
        recorded.push({ attemptNo, ok: result.ok, retryInMs });
      },
    };
    const taskQueue = `delivery-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    const { outcome, history, state } = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId: `webhook-delivery:${randomUUID()}`,
        args: [
          { deliveryId: randomUUID(), retryScheduleMs: options.retryScheduleMs ?? SPEC_SCHEDULE, maxAttempts: options.maxAttempts ?? 5 },
        ],
      });
      return { outcome: await handle.result(), history: await handle.fetchHistory(), state: await handle.query(deliveryStatusQuery) };
    });
    return { outcome, attempts, pausesMs: timerDurationsMs(history), recorded, history, state };
  }

  it('attempts at minutes 0, 2, 7, 18 and 42, then dead-letters after the fifth failure', async () => {
    const { outcome, attempts, pausesMs, recorded } = await deliver({});
    assert.equal(outcome, 'dead_letter');
    assert.equal(attempts, 5);
    assert.deepEqual(pausesMs, SPEC_SCHEDULE.slice(0, 4));
    assert.deepEqual(
      recorded.map((entry) => entry.retryInMs),
      [2 * MINUTE, 5 * MINUTE, 11 * MINUTE, 24 * MINUTE, null],
    );
  });

  it('stops the schedule when attempt 3 succeeds', async () => {
    const { outcome, attempts, pausesMs, recorded } = await deliver({ succeedsAt: 3 });
    assert.equal(outcome, 'succeeded');
    assert.equal(attempts, 3);
    assert.deepEqual(pausesMs, [2 * MINUTE, 5 * MINUTE]);
    assert.deepEqual(recorded.at(-1), { attemptNo: 3, ok: true, retryInMs: null });
  });

  it('honours a changed WEBHOOK_RETRY_SCHEDULE, repeating its last delay', async () => {
    const { outcome, attempts, pausesMs } = await deliver({ retryScheduleMs: [1 * MINUTE, 3 * MINUTE], maxAttempts: 4 });
    assert.equal(outcome, 'dead_letter');
    assert.equal(attempts, 4);
    assert.deepEqual(pausesMs, [1 * MINUTE, 3 * MINUTE, 3 * MINUTE]);
  });

  it('uses the fifth delay, 53 minutes, only when the attempt limit is raised (and skips it in seconds)', async () => {
    const { outcome, attempts, pausesMs } = await deliver({ maxAttempts: 6 });
    assert.equal(outcome, 'dead_letter');
    assert.equal(attempts, 6);
    assert.deepEqual(pausesMs, SPEC_SCHEDULE);
  });

  it('sends as a normal activity (a slow endpoint holds no workflow-task slot) and records locally', async () => {
    const { history } = await deliver({ succeedsAt: 2 });
    const events = history.events ?? [];
    const scheduled = events.flatMap((event) =>
      event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes.activityType?.name] : [],
    );
    assert.deepEqual(scheduled, ['sendWebhook', 'sendWebhook']);
    // recordWebhookAttempt stays a local activity: a marker per attempt, no activity task.
    assert.equal(events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity').length, 2);
  });

  it('retries a send that throws (the database down) without counting it as an attempt', async () => {
    const { outcome, recorded, attempts, pausesMs } = await deliver({ succeedsAt: 1, crashes: 2 });
    assert.equal(outcome, 'succeeded');
    assert.deepEqual(recorded, [{ attemptNo: 1, ok: true, retryInMs: null }]);
    assert.equal(attempts, 1);
    assert.deepEqual(pausesMs, []);
  });

  it('answers the status query with the attempts, the last result and the outcome', async () => {
    const { state } = await deliver({ succeedsAt: 2 });
    assert.equal(state.attempts, 2);
    assert.equal(state.outcome, 'succeeded');
    assert.equal(state.lastResult?.ok, true);
    assert.equal(state.lastResult?.statusCode, 200);
    const dead = await deliver({ maxAttempts: 2, retryScheduleMs: [MINUTE] });
    assert.deepEqual([dead.state.attempts, dead.state.outcome, dead.state.lastResult?.statusCode], [2, 'dead_letter', 503]);
  });
});
