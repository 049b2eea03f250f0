import type { DbOrTrx } from '../db';

/**
 * The only writer of outbound deliveries: an event a tenant's callback or webhook endpoint will receive (or
 * a replay or recovery of one) becomes a webhook_deliveries row here, in the caller's transaction; its
 * delivery workflow is the caller's job to queue (the webhook delivery contract builds it). Bodies come
 * from the event catalogue.
 */
export interface NewWebhookDelivery {
  id: string;
  eventId: string;
  tenantId: string;
  /** The account whose callbackUrl receives it, or null for an endpoint's delivery. */
  accountId: string | null;
  endpointId?: string | null;
  /** The tenant event an endpoint's delivery carries. */
  tenantEventId?: string | null;
  inboundEventId: string | null;
  replayOf?: string | null;
  callbackUrl: string;
  payload: string;
  eventReceivedAt: Date;
}

export function createWebhookDeliveries(db: DbOrTrx) {
  return {
    async enqueue(delivery: NewWebhookDelivery): Promise<void> {
      await db('webhook_deliveries').insert({
        id: delivery.id,
        event_id: delivery.eventId,
        tenant_id: delivery.tenantId,
        account_id: delivery.accountId,
        endpoint_id: delivery.endpointId ?? null,
        tenant_event_id: delivery.tenantEventId ?? null,
        inbound_event_id: delivery.inboundEventId,
        replay_of: delivery.replayOf ?? null,
        callback_url: delivery.callbackUrl,
        payload: delivery.payload,
        event_received_at: delivery.eventReceivedAt,
      });
    },

    /** A delivery still to be attempted ends as cancelled, never sent, `reason` as its last error; false when it had already ended. */
    async cancelDelivery(deliveryId: string, reason: string): Promise<boolean> {
      const changed = await db('webhook_deliveries')
        .where({ id: deliveryId })
        .whereIn('status', ['pending', 'retrying'])
        .update({ status: 'cancelled', last_error: reason, next_retry_at: null, updated_at: db.fn.now() });
      return changed > 0;
    },

    /** An endpoint's deliveries still to be attempted end as cancelled (never dead letters): their runs stop at their next send. */
    async cancelEndpointDeliveries(endpointId: string): Promise<number> {
      return db('webhook_deliveries')
        .where({ endpoint_id: endpointId })
        .whereIn('status', ['pending', 'retrying'])
        .update({ status: 'cancelled', next_retry_at: null, updated_at: db.fn.now() });
    },
  };
}

/**
 * `enqueue` for the grouped ingest statement, as one of its CTEs: a delivery for each credited payment whose
 * account has a callbackUrl. `credits` names a CTE with the rows' delivery_id, delivery_payload, event (the
 * inbound event) and received_at; `accounts` one with the accounts' id, tenant_id and callback_url. `payloadSql`
 * (of `c` and `t`, the credit and its account) is the body when it is not delivery_payload as it is.
 */
export function deliveriesOfCreditsCte(name: string, credits: string, accounts: string, payloadSql = 'c.delivery_payload'): string {
  return `${name} AS (
    INSERT INTO webhook_deliveries (id, event_id, tenant_id, account_id, inbound_event_id, callback_url, payload, event_received_at)
    SELECT c.delivery_id, c.delivery_id, t.tenant_id, t.id, CAST(c.event->>'id' AS uuid), t.callback_url, ${payloadSql}, c.received_at
      FROM ${credits} c JOIN ${accounts} t ON t.id = c.account_id
     WHERE t.callback_url IS NOT NULL
    RETURNING id
  )`;
}
