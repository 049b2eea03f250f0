import type { AppContext } from '../http/context';
import { defineRoute, idempotencyKeyOf, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { requiredIdempotencyKey, validIdempotencyKey } from '../idempotency/request-hash';
import { presentBatch, presentBatchSummary, presentDryRun } from './settlement-batch.presenter';
import {
  BATCHES_PAGE_SIZE,
  CREATE_BATCH_BODY_LIMIT,
  batchListResponseSchema,
  batchPageQuerySchema,
  batchParamsSchema,
  batchSchema,
  batchSummarySchema,
  createBatchBodySchema,
  createBatchQuerySchema,
  dryRunResponseSchema,
  ITEMS_PAGE_SIZE,
} from './settlement-batches.schemas';
import type { BatchActor, SettlementBatchesService } from './settlement-batches.service';

/**
 * Bulk payouts for an API key (`/v1`) and for a dashboard session (`/auth`): creating and cancelling a batch are
 * audited under the caller (a dashboard user by name). On the dashboard, both are an operator's (roles are a session's).
 */
function routesAt(
  prefix: '/v1' | '/auth',
  auth: 'apiKey' | 'session',
  actorOf: (ctx: AppContext) => BatchActor,
  settlementBatches: SettlementBatchesService,
): RouteDefinition[] {
  const onApi = auth === 'apiKey';
  const tag = onApi ? 'settlement batches' : 'dashboard';
  return [
    defineRoute({
      method: 'post',
      path: `${prefix}/settlement-batches`,
      summary: onApi
        ? 'Pay out up to 5,000 items at once (asynchronous): each becomes an ordinary settlement, in order; an invalid item fails alone; the Idempotency-Key is required. dryRun=true judges the items and creates nothing (no key needed)'
        : 'Pay out a batch (as POST /v1/settlement-batches; the Idempotency-Key is required); dryRun=true previews each item (no key needed); the batch is audited when made',
      tag,
      auth,
      scope: 'payouts:write',
      permission: onApi ? undefined : 'move_money',
      query: createBatchQuerySchema,
      body: createBatchBodySchema,
      // Required to create a batch (the handler refuses its absence); a dry run writes nothing and needs none.
      idempotencyKey: true,
      bodyLimit: CREATE_BATCH_BODY_LIMIT,
      responses: onApi
        ? {
            200: { description: 'dryRun=true: each item judged now, in order (nothing is created)', schema: dryRunResponseSchema },
            202: { description: 'Accepted (a replay under the same key answers the same batch)', schema: batchSummarySchema },
          }
        : {
            200: { description: 'dryRun=true: each item judged now (nothing is created)', schema: dryRunResponseSchema },
            202: { description: 'Accepted', schema: batchSummarySchema },
          },
      errors: onApi ? [400, 404, 409, 429] : [400, 409, 429],
      handle: async ({ query, body, ctx }) => {
        const actor = actorOf(ctx);
        // A dry run needs no key, but one sent must still be a valid key.
        const sentKey = validIdempotencyKey(idempotencyKeyOf(ctx));
        if (query.dryRun === 'true') return { status: 200, body: presentDryRun(await settlementBatches.dryRun(actor.tenantId, body)) };
        const key = requiredIdempotencyKey(sentKey);
        return { status: 202, body: presentBatchSummary(await settlementBatches.create(actor, body, key)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${prefix}/settlement-batches`,
      summary: onApi
        ? "The tenant's settlement batches, newest first, with their counts; with metadata[key]=value, only those carrying every pair given"
        : "The tenant's settlement batches, newest first",
      tag,
      auth,
      query: batchPageQuerySchema,
      responses: { 200: { description: 'A page of batches', schema: batchListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const page = await settlementBatches.list(actorOf(ctx).tenantId, {
          after: query.after,
          limit: query.limit ?? BATCHES_PAGE_SIZE,
          metadata: query.metadata,
        });
        return { status: 200, body: { batches: page.batches.map(presentBatchSummary), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${prefix}/settlement-batches/:id`,
      summary: onApi
        ? 'A settlement batch: its status, counts per item status, and a page of its items in request order; with metadata[key]=value, only the items carrying every pair given'
        : 'A settlement batch with a page of its items',
      tag,
      auth,
      params: batchParamsSchema,
      query: batchPageQuerySchema,
      responses: { 200: { description: 'The batch', schema: batchSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => ({
        status: 200,
        body: presentBatch(
          await settlementBatches.get(actorOf(ctx).tenantId, params.id, {
            after: query.after,
            limit: query.limit ?? ITEMS_PAGE_SIZE,
            metadata: query.metadata,
          }),
        ),
      }),
    }),
    defineRoute({
      method: 'post',
      path: `${prefix}/settlement-batches/:id/cancel`,
      summary: onApi
        ? 'Stop the items not yet initiated (they fail with reason "cancelled"; a scheduled batch before its time: all of them, their reserved money released); items already settling go on'
        : 'Stop the items of a batch not yet initiated (audited)',
      tag,
      auth,
      scope: 'payouts:write',
      permission: onApi ? undefined : 'move_money',
      params: batchParamsSchema,
      responses: { 200: { description: 'The batch, cancelled', schema: batchSummarySchema } },
      errors: [404, 409],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentBatchSummary(await settlementBatches.cancel(actorOf(ctx), params.id)),
      }),
    }),
  ];
}

export function settlementBatchesRoutes(deps: { settlementBatches: SettlementBatchesService }): RouteDefinition[] {
  return routesAt('/v1', 'apiKey', (ctx) => ({ tenantId: tenantOf(ctx).id }), deps.settlementBatches);
}

export function settlementBatchesDashboardRoutes(deps: { settlementBatches: SettlementBatchesService }): RouteDefinition[] {
  return routesAt('/auth', 'session', userOf, deps.settlementBatches);
}
