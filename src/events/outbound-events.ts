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

/**
 * `enqueue` for the grouped ingest statement, as one of its CTEs: a delivery for each credited payment whose
 * account has a callbackUrl. `credits` names a CTE with the rows' delivery_id, delivery_payload, event (the
 * inbound event) and received_at; `accounts` one with the accounts' id, tenant_id and callback_url.
 */
export function deliveriesOfCreditsCte(name: string, credits: string, accounts: string): string {
  return `${name} AS (
    INSERT INTO webhook_deliveries (id, event_id, tenant_id, account_id, inbound_event_id, callback_url, payload, event_received_at)
    SELECT c.delivery_id, c.delivery_id, t.tenant_id, t.id, CAST(c.event->>'id' AS uuid), t.callback_url, c.delivery_payload, c.received_at
      FROM ${credits} c JOIN ${accounts} t ON t.id = c.account_id
     WHERE t.callback_url IS NOT NULL
    RETURNING id
  )`;
}
