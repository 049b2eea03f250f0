import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { rejectBodySchema } from '../settlements/settlements.schemas';
import { DECISION_FRESH_CODE } from '../settlements/payout-approvals.routes';
import { presentBatchSummary, presentHeldBatch } from './settlement-batch.presenter';
import {
  batchParamsSchema,
  batchSummarySchema,
  heldBatchListQuerySchema,
  heldBatchListResponseSchema,
  heldBatchSchema,
} from './settlement-batches.schemas';
import type { SettlementBatchesService } from './settlement-batches.service';

const PAGE_SIZE = 25;

/**
 * Settlement batches the tenant's approval policy holds, decided as a whole: a person's act on the dashboard (no API
 * key scope approves money), asking a user with two-factor sign-in for a fresh code, as for a single payout.
 */
export function batchApprovalsDashboardRoutes(deps: { settlementBatches: SettlementBatchesService }): RouteDefinition[] {
  const { settlementBatches } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/batch-approvals',
      summary:
        "The tenant's settlement batches held by its approval policy, newest first: those awaiting approval unless a status is given",
      tag: 'dashboard',
      auth: 'session',
      query: heldBatchListQuerySchema,
      responses: { 200: { description: 'A page of held batches', schema: heldBatchListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const rows = await settlementBatches.listHeld(userOf(ctx).tenantId, query.status, uuidCursor(query.after), PAGE_SIZE + 1);
        const page = paginate(rows, PAGE_SIZE, (row) => row.batch.id);
        return { status: 200, body: { batches: page.items.map(presentHeldBatch), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/batch-approvals/:id',
      summary: 'One held settlement batch: its item count, total, why it waits, who made it, and the items the dry run flagged',
      tag: 'dashboard',
      auth: 'session',
      params: batchParamsSchema,
      responses: { 200: { description: 'The held batch', schema: heldBatchSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentHeldBatch(await settlementBatches.findHeld(userOf(ctx).tenantId, params.id)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/batch-approvals/:id/approve',
      summary:
        'Approve a settlement batch awaiting approval, as a whole (never one you made: 403 maker_cannot_approve): it runs now, each item spending what was reserved for it; audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'approve_money',
      params: batchParamsSchema,
      freshCode: DECISION_FRESH_CODE,
      responses: { 202: { description: 'Approved: the batch runs (validating)', schema: batchSummarySchema } },
      errors: [403, 404, 409],
      handle: async ({ params, ctx }) => ({
        status: 202,
        body: presentBatchSummary(await settlementBatches.approve(userOf(ctx), params.id)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/batch-approvals/:id/reject',
      summary:
        'Reject a settlement batch awaiting approval, with an optional note: what it reserved is released and no item is paid; audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'approve_money',
      freshCode: DECISION_FRESH_CODE,
      params: batchParamsSchema,
      body: rejectBodySchema,
      responses: { 200: { description: 'Rejected', schema: batchSummarySchema } },
      errors: [400, 403, 404, 409],
      handle: async ({ params, body, ctx }) => ({
        status: 200,
        body: presentBatchSummary(await settlementBatches.reject(userOf(ctx), params.id, body.note || null)),
      }),
    }),
  ];
}
