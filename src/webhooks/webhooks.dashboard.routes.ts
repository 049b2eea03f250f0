import type { AuditActor, AuditLog } from '../audit/audit-log';
import type { AuthService } from '../auth/auth.service';
import type { Db } from '../db';
import { AppError } from '../errors';
import { httpStatusOf } from '../http/middleware/errors';
import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import type { DeliveryRecord } from './deliveries.repo';
import { createDeliveryReadsRepo } from './delivery-reads.repo';
import { presentDelivery, presentDeliveryListItem, presentProcessingError, presentReplay } from './delivery.presenter';
import {
  deliveryListQuerySchema,
  deliveryListResponseSchema,
  processingErrorsQuerySchema,
  processingErrorsResponseSchema,
  replayManyBodySchema,
  replayManyResponseSchema,
  webhookSecretStatusSchema,
} from './webhooks.dashboard.schemas';
import { deliveryParamsSchema, deliverySchema, replayResponseSchema } from './webhooks.schemas';
import type { WebhooksService } from './webhooks.service';

const PAGE_SIZE = 50;

/** The dashboard's webhook pages: deliveries with attempts, dead letters, processing errors, replays. */
export function webhooksDashboardRoutes(deps: {
  db: Db;
  webhooks: WebhooksService;
  auth: AuthService;
  audit: AuditLog;
}): RouteDefinition[] {
  const { webhooks, auth, audit } = deps;
  const reads = createDeliveryReadsRepo(deps.db);

  async function replayAudited(user: AuditActor, id: string): Promise<DeliveryRecord> {
    const replay = await webhooks.replay(user.tenantId, id);
    await audit.record(
      user,
      'webhook.replayed',
      { type: 'webhook_delivery', id: replay.replayOf },
      { replayId: replay.id, eventId: replay.eventId },
    );
    return replay;
  }

  return [
    defineRoute({
      method: 'get',
      path: '/auth/webhooks/deliveries',
      summary:
        'Outbound deliveries, newest first, optionally of one status (dead_letter lists the dead letters), each with its latest replay',
      tag: 'dashboard',
      auth: 'session',
      query: deliveryListQuerySchema,
      responses: { 200: { description: 'A page of deliveries', schema: deliveryListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const rows = await reads.list(userOf(ctx).tenantId, query.status ?? null, uuidCursor(query.after), PAGE_SIZE + 1);
        const page = paginate(rows, PAGE_SIZE, (row) => row.id);
        return { status: 200, body: { deliveries: page.items.map(presentDeliveryListItem), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/webhooks/deliveries/:id',
      summary: 'One delivery with its attempt log (as GET /v1/webhooks/deliveries/{id})',
      tag: 'dashboard',
      auth: 'session',
      params: deliveryParamsSchema,
      responses: { 200: { description: 'The delivery', schema: deliverySchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const { delivery, attempts } = await webhooks.delivery(userOf(ctx).tenantId, params.id);
        return { status: 200, body: presentDelivery(delivery, attempts) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/webhooks/processing-errors',
      summary: 'Payment events whose posting failed, newest first',
      tag: 'dashboard',
      auth: 'session',
      query: processingErrorsQuerySchema,
      responses: { 200: { description: 'A page of processing errors', schema: processingErrorsResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const page = paginate(
          await webhooks.processingErrors(userOf(ctx).tenantId, uuidCursor(query.after), PAGE_SIZE),
          PAGE_SIZE,
          (row) => row.id,
        );
        return {
          status: 200,
          body: {
            processingErrors: page.items.map(presentProcessingError),
            pagination: page.pagination,
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/webhooks/deliveries/:id/replay',
      summary: 'Deliver a dead letter again (as POST /v1/webhooks/dead-letters/{id}/replay); audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'operate',
      params: deliveryParamsSchema,
      responses: { 202: { description: 'The new delivery', schema: replayResponseSchema } },
      errors: [404, 409],
      handle: async ({ params, ctx }) => ({ status: 202, body: presentReplay(await replayAudited(userOf(ctx), params.id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/webhooks/replay',
      summary: 'Replay several dead letters; each succeeds or fails on its own',
      tag: 'dashboard',
      auth: 'session',
      permission: 'operate',
      body: replayManyBodySchema,
      responses: { 200: { description: 'One result per id, in the order given', schema: replayManyResponseSchema } },
      errors: [400],
      handle: async ({ body, ctx }) => {
        const user = userOf(ctx);
        const results = [];
        for (const id of body.ids) {
          try {
            results.push({ ID: id, replay: presentReplay(await replayAudited(user, id)), error: null });
          } catch (error) {
            if (!(error instanceof AppError) || httpStatusOf(error) >= 500) throw error;
            results.push({ ID: id, replay: null, error: error.message });
          }
        }
        return { status: 200, body: { results } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/webhook-secret',
      summary: 'Whether outbound deliveries are signed (the secret itself is never shown again)',
      tag: 'dashboard',
      auth: 'session',
      responses: { 200: { description: 'Signing status', schema: webhookSecretStatusSchema } },
      handle: async ({ ctx }) => ({
        status: 200,
        body: { configured: (await auth.findTenant(userOf(ctx).tenantId)).webhook_secret_enc !== null },
      }),
    }),
  ];
}
