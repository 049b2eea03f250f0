import { defineQuery, proxyActivities, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks.activities';
import type { DeliveryAttemptResult, WebhookDeliveryInput } from '../src/contracts/webhook-delivery.contract';

// The HTTP call is a normal activity: a tenant's slow endpoint holds an activity slot for up to
// WEBHOOK_TIMEOUT, never a workflow-task slot that confirmations need. The rest is database time.
// Its start-to-close comes with the input (from WEBHOOK_TIMEOUT): it is also how long a send lost with
// a dead worker waits before it is retried.
const sendActivity = (startToCloseMs: number | undefined) =>
  proxyActivities<WebhookActivities>({
    startToCloseTimeout: startToCloseMs ?? '2 minutes',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  }).sendWebhook;

const local = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '1 minute',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface DeliveryState {
  attempts: number;
  lastResult: DeliveryAttemptResult | null;
  outcome: 'succeeded' | 'dead_letter' | null;
}

export const deliveryStatusQuery = defineQuery<DeliveryState>('status');

/**
 * Attempt 1 at once; after failure n, wait retryScheduleMs[n - 1] (the last delay repeats if the list is
 * shorter than the attempts); after maxAttempts failures the delivery is a dead letter. The schedule is
 * the only retry of a delivery: an HTTP failure is a result, not an activity error.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<'succeeded' | 'dead_letter'> {
  const state: DeliveryState = { attempts: 0, lastResult: null, outcome: null };
  setHandler(deliveryStatusQuery, () => state);
  const send = sendActivity(input.sendTimeoutMs);
  for (let attempt = 1; ; attempt += 1) {
    const result = await send(input.deliveryId);
    const last = attempt >= input.maxAttempts;
    const retryInMs = last ? null : (input.retryScheduleMs[Math.min(attempt - 1, input.retryScheduleMs.length - 1)] ?? 0);
    await local.recordWebhookAttempt(input.deliveryId, attempt, result, result.ok ? null : retryInMs);
    state.attempts = attempt;
    state.lastResult = result;
    if (result.ok || retryInMs === null) {
      state.outcome = result.ok ? 'succeeded' : 'dead_letter';
      return state.outcome;
    }
    await sleep(retryInMs);
  }
}
