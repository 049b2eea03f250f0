import { ApplicationFailure } from '@temporalio/activity';
import { DeliveryCancelledError, DeliveryNotFoundError, type WebhookDeliveryService } from '../src/webhooks/delivery.service';
import type { DeliveryAttemptResult } from '../src/contracts/webhook-delivery.contract';

export function createWebhookActivities(deps: { deliveries: WebhookDeliveryService }) {
  const { deliveries } = deps;
  return {
    async sendWebhook(deliveryId: string): Promise<DeliveryAttemptResult> {
      try {
        return await deliveries.send(deliveryId);
      } catch (error) {
        if (error instanceof DeliveryNotFoundError) throw ApplicationFailure.nonRetryable(error.message, 'DeliveryNotFound');
        if (error instanceof DeliveryCancelledError) throw ApplicationFailure.nonRetryable(error.message, 'DeliveryCancelled');
        throw error;
      }
    },
    recordWebhookAttempt(deliveryId: string, attemptNo: number, result: DeliveryAttemptResult, retryInMs: number | null): Promise<void> {
      return deliveries.record(deliveryId, attemptNo, result, retryInMs);
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
