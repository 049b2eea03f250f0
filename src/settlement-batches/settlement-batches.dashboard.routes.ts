import { defineRoute, idempotencyKeyOf, userOf, type RouteDefinition } from '../http/route';
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
import type { SettlementBatchesService } from './settlement-batches.service';

/** The dashboard's bulk payouts: the API's, for a signed-in user; creating and cancelling are audited. */
export function settlementBatchesDashboardRoutes(deps: { settlementBatches: SettlementBatchesService }): RouteDefinition[] {
  const { settlementBatches } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/auth/settlement-batches',
      summary:
        'Pay out a batch (as POST /v1/settlement-batches; the Idempotency-Key is required); dryRun=true previews each item (no key needed); the batch is audited when made',
      tag: 'dashboard',
      auth: 'session',
      role: 'operator',
      query: createBatchQuerySchema,
      body: createBatchBodySchema,
      // Required to create a batch (the handler refuses its absence); a dry run writes nothing and needs none.
      idempotencyKey: true,
      bodyLimit: CREATE_BATCH_BODY_LIMIT,
      responses: {
        200: { description: 'dryRun=true: each item judged now (nothing is created)', schema: dryRunResponseSchema },
        202: { description: 'Accepted', schema: batchSummarySchema },
      },
      errors: [400, 409],
      handle: async ({ query, body, ctx }) => {
        const user = userOf(ctx);
        // A dry run needs no key, but one sent must still be a valid key.
        const sentKey = validIdempotencyKey(idempotencyKeyOf(ctx));
        if (query.dryRun === 'true') return { status: 200, body: presentDryRun(await settlementBatches.dryRun(user.tenantId, body)) };
        const key = requiredIdempotencyKey(sentKey);
        return { status: 202, body: presentBatchSummary(await settlementBatches.create(user, body, key)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/settlement-batches',
      summary: "The tenant's settlement batches, newest first",
      tag: 'dashboard',
      auth: 'session',
      query: batchPageQuerySchema,
      responses: { 200: { description: 'A page of batches', schema: batchListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const page = await settlementBatches.list(userOf(ctx).tenantId, { after: query.after, limit: query.limit ?? BATCHES_PAGE_SIZE });
        return { status: 200, body: { batches: page.batches.map(presentBatchSummary), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/settlement-batches/:id',
      summary: 'A settlement batch with a page of its items',
      tag: 'dashboard',
      auth: 'session',
      params: batchParamsSchema,
      query: batchPageQuerySchema,
      responses: { 200: { description: 'The batch', schema: batchSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => ({
        status: 200,
        body: presentBatch(
          await settlementBatches.get(userOf(ctx).tenantId, params.id, { after: query.after, limit: query.limit ?? ITEMS_PAGE_SIZE }),
        ),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/settlement-batches/:id/cancel',
      summary: 'Stop the items of a batch not yet initiated (audited)',
      tag: 'dashboard',
      auth: 'session',
      role: 'operator',
      params: batchParamsSchema,
      responses: { 200: { description: 'The batch, cancelled', schema: batchSummarySchema } },
      errors: [404, 409],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentBatchSummary(await settlementBatches.cancel(userOf(ctx), params.id)),
      }),
    }),
  ];
}
