import { setTimeout } from 'node:timers/promises';
import { createAuditLog, type AuditAction, type AuditActor } from '../audit/audit-log';
import type { Config } from '../config';
import type { Jobs } from '../contracts/jobs';
import type { Db, DbOrTrx } from '../db';
import { NotFoundError } from '../errors';
import { createWebhookDeliveries } from '../events/webhook-deliveries';
import { createTenantEvents, eventEnvelopeBody, type RecoveryPosition } from '../events/tenant-events';
import { isUuid, uuidv7 } from '../ids';
import { assertCallbackUrlAllowed } from '../net/address-policy';
import { createOutboxRepo, type OutboxEntry } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import type { RateLimits } from '../rate-limits/rate-limits';
import { currentSecret, newEndpointSecret, sealEndpointSecret } from './endpoint-secrets';
import { createEndpointsRepo, type EndpointHealth, type EndpointRecord } from './endpoints.repo';
import type { CreateEndpointBody, UpdateEndpointBody } from './endpoints.schemas';

type EndpointsConfig = Pick<
  Config,
  'DATA_ENCRYPTION_KEYRING' | 'ALLOW_PRIVATE_CALLBACK_URLS' | 'NODE_ENV' | 'WEBHOOK_SECRET_ROTATION_OVERLAP' | 'WEBHOOK_RECOVER_MAX_EVENTS'
>;

/** `["*"]` (or nothing) subscribes to every type, including types added later. */
function subscription(types: string[] | undefined): string[] | null {
  return !types || types.includes('*') ? null : [...new Set(types)];
}

/** How long a recover call waits for transactions in flight to end before it answers with `next` to call again. */
const IN_FLIGHT_WAIT_MS = 1_000;
const IN_FLIGHT_POLL_MS = 20;

/** A recovery's position as the `next` of its answer (an opaque string to the caller: `until.xactId.eventId`). */
const recoveryCursor = (position: RecoveryPosition): string => `${position.until}.${position.xactId}.${position.id}`;

/** The position a `next` names (its shape is checked by the request schema). */
function recoveryPositionOf(cursor: string): RecoveryPosition {
  const [until, xactId, id] = cursor.toLowerCase().split('.') as [string, string, string];
  return { until, xactId, id };
}

/** Who made a change, for the audit row: an API key's call (by `name`), or a dashboard user (by id and email). */
export type EndpointActor = { tenantId: string; name: string } | AuditActor;

function recordAudit(
  trx: DbOrTrx,
  actor: EndpointActor,
  action: AuditAction,
  endpointId: string,
  detail: Record<string, unknown>,
): Promise<void> {
  const target = { type: 'webhook_endpoint', id: endpointId };
  const log = createAuditLog(trx);
  return 'email' in actor ? log.record(actor, action, target, detail) : log.recordAs(actor.tenantId, actor.name, action, target, detail);
}

/** A tenant's webhook endpoints: what they receive, their secrets, their health, and recovery. */
export function createEndpointsService(deps: {
  db: Db;
  config: EndpointsConfig;
  jobs: Jobs;
  starter: WorkflowStarter;
  limits: Pick<RateLimits, 'endpointRecoveries'>;
}) {
  const { db, config, jobs, starter, limits } = deps;
  const endpoints = createEndpointsRepo(db);

  const checkUrl = (url: string) =>
    assertCallbackUrlAllowed(
      url,
      { allowPrivate: config.ALLOW_PRIVATE_CALLBACK_URLS, requireHttps: config.NODE_ENV === 'production' },
      'url',
    );

  async function find(tenantId: string, id: string): Promise<EndpointRecord> {
    const endpoint = isUuid(id) ? await endpoints.find(tenantId, id.toLowerCase()) : undefined;
    if (!endpoint) throw new NotFoundError('webhook endpoint not found');
    return endpoint;
  }

  return {
    find,
    health: (endpoint: EndpointRecord): Promise<EndpointHealth> => endpoints.health(endpoint.id),
    list: (tenantId: string): Promise<EndpointRecord[]> => endpoints.list(tenantId),

    /** The new endpoint and its secret, returned this once. */
    async create(actor: EndpointActor, body: CreateEndpointBody): Promise<{ endpoint: EndpointRecord; secret: string }> {
      await checkUrl(body.url);
      const id = uuidv7();
      const secret = newEndpointSecret();
      const endpoint = await db.transaction(async (trx) => {
        const created = await createEndpointsRepo(trx).insert({
          id,
          tenantId: actor.tenantId,
          url: body.url,
          description: body.description ?? '',
          eventTypes: subscription(body.eventTypes),
          secretEnc: sealEndpointSecret(config.DATA_ENCRYPTION_KEYRING, id, secret),
        });
        if (body.enabled === false) await createEndpointsRepo(trx).update(actor.tenantId, id, { enabled: false });
        await recordAudit(trx, actor, 'webhook_endpoint.created', id, { url: body.url, eventTypes: created.eventTypes ?? ['*'] });
        return body.enabled === false ? { ...created, enabled: false } : created;
      });
      return { endpoint, secret };
    },

    async update(actor: EndpointActor, id: string, body: UpdateEndpointBody): Promise<EndpointRecord> {
      const endpoint = await find(actor.tenantId, id);
      if (body.url !== undefined) await checkUrl(body.url);
      await db.transaction(async (trx) => {
        await createEndpointsRepo(trx).update(actor.tenantId, endpoint.id, {
          ...(body.url !== undefined ? { url: body.url } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.eventTypes !== undefined ? { eventTypes: subscription(body.eventTypes) } : {}),
          ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
        });
        const action = body.enabled === true && !endpoint.enabled ? 'webhook_endpoint.enabled' : 'webhook_endpoint.updated';
        await recordAudit(trx, actor, action, endpoint.id, { ...body });
      });
      return find(actor.tenantId, endpoint.id);
    },

    /** Deleted at once; its deliveries still to be attempted end as cancelled. */
    async remove(actor: EndpointActor, id: string): Promise<{ cancelled: number }> {
      const endpoint = await find(actor.tenantId, id);
      return db.transaction(async (trx) => {
        // Deliveries before the endpoint: the order an attempt's record locks them in, so the two never deadlock.
        const cancelled = await createWebhookDeliveries(trx).cancelEndpointDeliveries(endpoint.id);
        await createEndpointsRepo(trx).markDeleted(endpoint.id);
        await recordAudit(trx, actor, 'webhook_endpoint.deleted', endpoint.id, { url: endpoint.url, cancelled });
        return { cancelled };
      });
    },

    /** A new secret, shown once; the previous one keeps signing beside it for WEBHOOK_SECRET_ROTATION_OVERLAP. */
    async rotateSecret(actor: EndpointActor, id: string): Promise<{ endpoint: EndpointRecord; secret: string }> {
      const found = await find(actor.tenantId, id);
      const secret = newEndpointSecret();
      await db.transaction(async (trx) => {
        const repo = createEndpointsRepo(trx);
        const endpoint = (await repo.lock(found.id))!;
        const overlapEnds = new Date(Date.now() + config.WEBHOOK_SECRET_ROTATION_OVERLAP);
        const previous = sealEndpointSecret(
          config.DATA_ENCRYPTION_KEYRING,
          endpoint.id,
          currentSecret(config.DATA_ENCRYPTION_KEYRING, endpoint),
          'previous',
        );
        await repo.rotateSecret(
          endpoint.id,
          sealEndpointSecret(config.DATA_ENCRYPTION_KEYRING, endpoint.id, secret),
          previous,
          overlapEnds,
        );
        await recordAudit(trx, actor, 'webhook_endpoint.secret_rotated', endpoint.id, { previousSignsUntil: overlapEnds.toISOString() });
      });
      return { endpoint: await find(actor.tenantId, found.id), secret };
    },

    /**
     * Queues a fresh delivery of every event of the endpoint's types recorded since `since`, in commit
     * order (same event ids, same bodies: a receiver drops what it already has), at most
     * WEBHOOK_RECOVER_MAX_EVENTS per call; `next` continues a longer range. An event whose transaction
     * commits while the recovery pages is not skipped: it comes on a later page (see recoveryPage).
     * Events recorded by transactions that began after the first call are dispatched the usual way.
     */
    async recover(
      actor: EndpointActor,
      id: string,
      since: Date,
      after: string | undefined,
    ): Promise<{ queued: number; next: string | null }> {
      await limits.endpointRecoveries.consume(actor.tenantId);
      const endpoint = await find(actor.tenantId, id);
      const events = createTenantEvents(db);
      const limit = config.WEBHOOK_RECOVER_MAX_EVENTS;
      const position = after ? recoveryPositionOf(after) : await events.recoveryStart(actor.tenantId, endpoint.eventTypes, since);
      let page = await events.recoveryPage(actor.tenantId, endpoint.eventTypes, since, position, limit);
      // Transactions in flight as the recovery began are usually milliseconds from their end: a short
      // wait for them answers most recoveries in one call instead of a "call again" with nothing queued.
      const waitUntil = Date.now() + IN_FLIGHT_WAIT_MS;
      while (page.next !== null && page.events.length < limit && Date.now() < waitUntil) {
        await setTimeout(IN_FLIGHT_POLL_MS);
        page = await events.recoveryPage(actor.tenantId, endpoint.eventTypes, since, position, limit);
      }
      const batch = page.events;
      const queued: OutboxEntry[] = [];
      await db.transaction(async (trx) => {
        for (const event of batch) {
          const deliveryId = uuidv7();
          await createWebhookDeliveries(trx).enqueue({
            id: deliveryId,
            eventId: event.id,
            tenantId: actor.tenantId,
            accountId: null,
            endpointId: endpoint.id,
            tenantEventId: event.id,
            inboundEventId: null,
            callbackUrl: endpoint.url,
            payload: eventEnvelopeBody(event),
            eventReceivedAt: event.createdAt,
          });
          queued.push(jobs.webhookDelivery({ deliveryId, tenantId: actor.tenantId, accountRef: null }));
        }
        await createOutboxRepo(trx).enqueue(queued);
        await recordAudit(trx, actor, 'webhook_endpoint.recovered', endpoint.id, { since: since.toISOString(), queued: batch.length });
      });
      starter.kick(queued);
      return { queued: batch.length, next: page.next && recoveryCursor(page.next) };
    },
  };
}

export type EndpointsService = ReturnType<typeof createEndpointsService>;
