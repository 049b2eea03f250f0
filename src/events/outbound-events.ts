import type { DbOrTrx } from '../db';

/**
 * The only writer of outbound deliveries: an event a tenant's callback will receive (or a replay of one)
 * becomes a webhook_deliveries row here, in the caller's transaction; its delivery workflow is the caller's
 * job to queue (the webhook delivery contract builds it). Bodies come from the event catalogue.
 */
export interface OutboundDelivery {
  id: string;
  eventId: string;
  tenantId: string;
  accountId: string;
  inboundEventId: string | null;
  replayOf?: string | null;
  callbackUrl: string;
  payload: string;
  eventReceivedAt: Date;
}

export function createOutboundEvents(db: DbOrTrx) {
  return {
    async enqueue(delivery: OutboundDelivery): Promise<void> {
      await db('webhook_deliveries').insert({
        id: delivery.id,
        event_id: delivery.eventId,
        tenant_id: delivery.tenantId,
        account_id: delivery.accountId,
        inbound_event_id: delivery.inboundEventId,
        replay_of: delivery.replayOf ?? null,
        callback_url: delivery.callbackUrl,
        payload: delivery.payload,
        event_received_at: delivery.eventReceivedAt,
      });
    },
  };
}
