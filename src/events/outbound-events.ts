import type { DbOrTrx } from '../db';
import { kycLimitExceededBodySql } from './event-catalogue';

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
    /**
     * A kyc.limit_exceeded delivery for the hold the ledger wrote on this credit, when there is one and
     * the account has a callbackUrl; whether it was made (and so its delivery workflow is to be queued).
     */
    async enqueueForHold(delivery: { id: string; entryId: string; inboundEventId: string | null; eventReceivedAt: Date }): Promise<boolean> {
      const result = await db.raw(
        `INSERT INTO webhook_deliveries (id, event_id, tenant_id, account_id, inbound_event_id, callback_url, payload, event_received_at)
         SELECT :id, :id, a.tenant_id, a.id, :inbound_event_id, a.callback_url,
                ${kycLimitExceededBodySql('h', 'a.account_ref', 'h.transaction_group_id')}, :received_at
           FROM (SELECT lh.*, e.amount AS credit_amount, e.transaction_group_id FROM ledger_holds lh JOIN ledger_entries e ON e.id = lh.entry_id WHERE lh.entry_id = :entry_id) h
           JOIN virtual_accounts a ON a.id = h.account_id
          WHERE a.callback_url IS NOT NULL`,
        { id: delivery.id, entry_id: delivery.entryId, inbound_event_id: delivery.inboundEventId, received_at: delivery.eventReceivedAt },
      );
      return (result.rowCount ?? 0) > 0;
    },

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

/**
 * A kyc.limit_exceeded delivery for each hold the grouped ingest statement's ledger posting wrote
 * (posting_held), when the account has a callbackUrl. `credits` names the CTE with each credit's
 * hold_delivery_id, entry (its id and transaction_group_id), event and received_at; `accounts` the accounts'
 * id, tenant_id, account_ref and callback_url.
 */
export function deliveriesOfHoldsCte(name: string, credits: string, accounts: string): string {
  return `${name} AS (
    INSERT INTO webhook_deliveries (id, event_id, tenant_id, account_id, inbound_event_id, callback_url, payload, event_received_at)
    SELECT c.hold_delivery_id, c.hold_delivery_id, t.tenant_id, t.id, CAST(c.event->>'id' AS uuid), t.callback_url,
           ${kycLimitExceededBodySql('h', 't.account_ref', "c.entry->>'transaction_group_id'")}, c.received_at
      FROM posting_held h
      JOIN ${credits} c ON CAST(c.entry->>'id' AS uuid) = h.entry_id
      JOIN ${accounts} t ON t.id = h.account_id
     WHERE t.callback_url IS NOT NULL
    RETURNING id
  )`;
}
