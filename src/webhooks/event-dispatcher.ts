import type { Db } from '../db';
import { uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import { createWebhookDeliveries } from '../events/webhook-deliveries';
import { createTenantEvents, eventEnvelopeBody } from '../events/tenant-events';
import { createOutboxRepo, type OutboxEntry } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { createEndpointsRepo, type EndpointRecord } from './endpoints.repo';

/** Events one pass dispatches. */
const DISPATCH_LIMIT = 200;

/**
 * Turns recorded events into deliveries: each undispatched event becomes one delivery (and one delivery
 * workflow) per enabled endpoint of its tenant subscribed to its type, and is marked dispatched, all in one
 * transaction, so an event is delivered to its subscribers once and never lost. Only the tenant's own
 * endpoints are ever looked at.
 */
export function createEventDispatcher(deps: { db: Db; jobs: Jobs; starter: WorkflowStarter }) {
  const { db, jobs, starter } = deps;
  return {
    /** How many events it dispatched; a full pass means more may be waiting. */
    async pass(): Promise<{ dispatched: number; full: boolean }> {
      const queued: OutboxEntry[] = [];
      const dispatched = await db.transaction(async (trx) => {
        const events = createTenantEvents(trx);
        const pending = await events.lockUndispatched(DISPATCH_LIMIT);
        const subscribers = new Map<string, EndpointRecord[]>();
        for (const event of pending) {
          const key = `${event.tenantId}:${event.type}`;
          if (!subscribers.has(key)) subscribers.set(key, await createEndpointsRepo(trx).subscribers(event.tenantId, event.type));
          const body = eventEnvelopeBody(event);
          for (const endpoint of subscribers.get(key)!) {
            const deliveryId = uuidv7();
            await createWebhookDeliveries(trx).enqueue({
              id: deliveryId,
              eventId: event.id,
              tenantId: event.tenantId,
              accountId: null,
              endpointId: endpoint.id,
              tenantEventId: event.id,
              inboundEventId: null,
              callbackUrl: endpoint.url,
              payload: body,
              eventReceivedAt: event.createdAt,
            });
            queued.push(jobs.webhookDelivery({ deliveryId, tenantId: event.tenantId, accountRef: null }));
          }
        }
        await createOutboxRepo(trx).enqueue(queued);
        await events.markDispatched(pending.map((event) => event.id));
        return pending.length;
      });
      starter.kick(queued);
      return { dispatched, full: dispatched >= DISPATCH_LIMIT };
    },
  };
}

export type EventDispatcher = ReturnType<typeof createEventDispatcher>;
