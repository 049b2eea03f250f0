import { z } from 'zod';
import { FRESH_CODE_MAX_AGE_MS } from '../auth/two-factor-requirement';
import { defineRoute, userOf, type FreshCodeDemand, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { presentHeldTransfer, presentInternalTransfer } from './internal-transfer.presenter';
import {
  heldTransferListQuerySchema,
  heldTransferListResponseSchema,
  heldTransferSchema,
  internalTransferSchema,
  rejectTransferBodySchema,
} from './internal-transfers.schemas';
import type { InternalTransfersService } from './internal-transfers.service';

const PAGE_SIZE = 25;

/** A decision on a held transfer asks what one on a held payout asks: a code of the last 5 minutes of a user with two-factor sign-in. */
const DECISION_FRESH_CODE: FreshCodeDemand = { withinMs: FRESH_CODE_MAX_AGE_MS, askedOf: 'two_factor_users' };

const heldTransferParamsSchema = z.object({ id: z.string().max(100) });

/**
 * Transfers between accounts the tenant's approval policy holds, and their decisions: a person's act on the dashboard
 * (no API key scope approves money), each asking a user with two-factor sign-in for a fresh code, as for payouts.
 */
export function transferApprovalsDashboardRoutes(deps: { transfers: InternalTransfersService }): RouteDefinition[] {
  const { transfers } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/transfer-approvals',
      summary: "The tenant's transfers held by its approval policy, newest first: those awaiting approval unless a status is given",
      tag: 'dashboard',
      auth: 'session',
      query: heldTransferListQuerySchema,
      responses: { 200: { description: 'A page of held transfers', schema: heldTransferListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const rows = await transfers.listHeld(userOf(ctx).tenantId, query.status, uuidCursor(query.after), PAGE_SIZE + 1);
        const page = paginate(rows, PAGE_SIZE, (row) => row.id);
        return { status: 200, body: { transfers: page.items.map(presentHeldTransfer), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/transfer-approvals/:id',
      summary: 'One held transfer: what it moves, who made it and what became of it',
      tag: 'dashboard',
      auth: 'session',
      params: heldTransferParamsSchema,
      responses: { 200: { description: 'The held transfer', schema: heldTransferSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentHeldTransfer(await transfers.findHeld(userOf(ctx).tenantId, params.id)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/transfer-approvals/:id/approve',
      summary:
        'Approve a transfer awaiting approval (never one you made: 403 maker_cannot_approve): it moves now, under the same id, its reserved amount spent by its debit; audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'approve_money',
      params: heldTransferParamsSchema,
      freshCode: DECISION_FRESH_CODE,
      responses: { 201: { description: 'Approved: the transfer, completed', schema: internalTransferSchema } },
      errors: [400, 403, 404, 409, 429],
      handle: async ({ params, ctx }) => ({
        status: 201,
        body: presentInternalTransfer(await transfers.approve(userOf(ctx), params.id)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/transfer-approvals/:id/reject',
      summary: 'Reject a transfer awaiting approval, with an optional note: its reserved amount is released; audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'approve_money',
      freshCode: DECISION_FRESH_CODE,
      params: heldTransferParamsSchema,
      body: rejectTransferBodySchema,
      responses: { 200: { description: 'Rejected', schema: internalTransferSchema } },
      errors: [400, 403, 404, 409],
      handle: async ({ params, body, ctx }) => ({
        status: 200,
        body: presentInternalTransfer(await transfers.reject(userOf(ctx), params.id, body.note || null)),
      }),
    }),
  ];
}
