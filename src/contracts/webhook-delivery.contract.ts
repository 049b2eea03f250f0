/**
 * The webhook delivery workflow's contract, shared by the workflow, its activities and the code that
 * starts it. Workflow code imports this module: types and pure functions only.
 */
import type { WorkflowJob } from './workflow-job';

export interface WebhookDeliveryInput {
  deliveryId: string;
  retryScheduleMs: number[];
  maxAttempts: number;
  /**
   * Start-to-close of the send activity, from WEBHOOK_TIMEOUT: a worker that dies mid-send delays the
   * delivery this long. Runs started without it allow 2 minutes.
   */
  sendTimeoutMs?: number;
}

export interface DeliveryAttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
}

export const webhookDeliveryWorkflowId = (deliveryId: string): string => `webhook-delivery:${deliveryId}`;

/** One send may run this long: the POST (its DNS lookup included) has a hard WEBHOOK_TIMEOUT; the rest is database work. */
export const webhookSendTimeoutMs = (webhookTimeoutMs: number): number => webhookTimeoutMs + 10_000;

/** The timings a delivery takes from configuration at the moment its job is committed. */
export interface DeliveryTimings {
  WEBHOOK_RETRY_SCHEDULE: readonly number[];
  WEBHOOK_MAX_ATTEMPTS: number;
  WEBHOOK_TIMEOUT: number;
}

export function webhookDeliveryJob(
  timings: DeliveryTimings,
  input: { deliveryId: string; tenantId: string; accountRef: string | null },
): WorkflowJob<'webhookDeliveryWorkflow', WebhookDeliveryInput> {
  return {
    workflowType: 'webhookDeliveryWorkflow',
    workflowId: webhookDeliveryWorkflowId(input.deliveryId),
    args: {
      deliveryId: input.deliveryId,
      retryScheduleMs: [...timings.WEBHOOK_RETRY_SCHEDULE],
      maxAttempts: timings.WEBHOOK_MAX_ATTEMPTS,
      sendTimeoutMs: webhookSendTimeoutMs(timings.WEBHOOK_TIMEOUT),
    },
    // An endpoint's delivery belongs to no account.
    searchAttributes: input.accountRef ? { TenantId: input.tenantId, AccountRef: input.accountRef } : { TenantId: input.tenantId },
  };
}

/** Deliveries start after money going out, before reconciliation and confirmations; one run per delivery. */
export const WEBHOOK_DELIVERY_START_POLICY = { priority: 1, reusePolicy: 'REJECT_DUPLICATE' } as const;
