import { defineRoute, idempotencyKeyOf, tenantOf, type RouteDefinition } from '../http/route';
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

export function settlementBatchesRoutes(deps: { settlementBatches: SettlementBatchesService }): RouteDefinition[] {
  const { settlementBatches } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/settlement-batches',
      summary:
        'Pay out up to 5,000 items at once (asynchronous): each becomes an ordinary settlement, in order; an invalid item fails alone; the Idempotency-Key is required. dryRun=true judges the items and creates nothing (no key needed)',
      tag: 'settlement batches',
      auth: 'apiKey',
      query: createBatchQuerySchema,
      body: createBatchBodySchema,
      // Required to create a batch (the handler refuses its absence); a dry run writes nothing and needs none.
      idempotencyKey: true,
      bodyLimit: CREATE_BATCH_BODY_LIMIT,
      responses: {
        200: { description: 'dryRun=true: each item judged now, in order (nothing is created)', schema: dryRunResponseSchema },
        202: { description: 'Accepted (a replay under the same key answers the same batch)', schema: batchSummarySchema },
      },
      errors: [400, 404, 409],
      handle: async ({ query, body, ctx }) => {
        const tenantId = tenantOf(ctx).id;
        // A dry run needs no key, but one sent must still be a valid key.
        const sentKey = validIdempotencyKey(idempotencyKeyOf(ctx));
        if (query.dryRun === 'true') return { status: 200, body: presentDryRun(await settlementBatches.dryRun(tenantId, body)) };
        const key = requiredIdempotencyKey(sentKey);
        return { status: 202, body: presentBatchSummary(await settlementBatches.create({ tenantId }, body, key)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/settlement-batches',
      summary: "The tenant's settlement batches, newest first, with their counts",
      tag: 'settlement batches',
      auth: 'apiKey',
      query: batchPageQuerySchema,
      responses: { 200: { description: 'A page of batches', schema: batchListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const page = await settlementBatches.list(tenantOf(ctx).id, { after: query.after, limit: query.limit ?? BATCHES_PAGE_SIZE });
        return { status: 200, body: { batches: page.batches.map(presentBatchSummary), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/settlement-batches/:id',
      summary: 'A settlement batch: its status, counts per item status, and a page of its items in request order',
      tag: 'settlement batches',
      auth: 'apiKey',
      params: batchParamsSchema,
      query: batchPageQuerySchema,
      responses: { 200: { description: 'The batch', schema: batchSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => ({
        status: 200,
        body: presentBatch(
          await settlementBatches.get(tenantOf(ctx).id, params.id, { after: query.after, limit: query.limit ?? ITEMS_PAGE_SIZE }),
        ),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/settlement-batches/:id/cancel',
      summary: 'Stop the items not yet initiated (they fail with reason "cancelled"); items already settling go on',
      tag: 'settlement batches',
      auth: 'apiKey',
      params: batchParamsSchema,
      responses: { 200: { description: 'The batch, cancelled', schema: batchSummarySchema } },
      errors: [404, 409],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentBatchSummary(await settlementBatches.cancel({ tenantId: tenantOf(ctx).id }, params.id)),
      }),
    }),
  ];
}
