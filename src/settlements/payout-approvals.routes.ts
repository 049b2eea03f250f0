import { defineRoute, userOf, type FreshCodeDemand, type RouteDefinition } from '../http/route';
import { FRESH_CODE_MAX_AGE_MS } from '../auth/two-factor-requirement';
import { paginate, uuidCursor } from '../http/pagination';
import { presentAcceptedSettlement, presentHeldPayout } from './settlement.presenter';
import {
  heldPayoutListQuerySchema,
  heldPayoutListResponseSchema,
  heldPayoutSchema,
  rejectBodySchema,
  settleResponseSchema,
  settlementRefParamsSchema,
} from './settlements.schemas';
import type { PayoutApprovalsService } from './payout-approvals.service';

const PAGE_SIZE = 25;

/**
 * A decision on held money asks a user with two-factor sign-in (enrolled, or required by the tenant) for a code of the
 * last 5 minutes: a stolen session alone cannot approve. A user with neither decides with the session, as before.
 */
export const DECISION_FRESH_CODE: FreshCodeDemand = { withinMs: FRESH_CODE_MAX_AGE_MS, askedOf: 'two_factor_users' };

/**
 * Payouts the tenant's approval policy holds, and their decisions: a person's act on the dashboard (no API key scope
 * approves money), each asking for a fresh second factor of a user who has one (DECISION_FRESH_CODE).
 */
export function payoutApprovalsDashboardRoutes(deps: { payoutApprovals: PayoutApprovalsService }): RouteDefinition[] {
  const { payoutApprovals } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/approvals',
      summary: "The tenant's payouts held by its approval policy, newest first: those awaiting approval unless a status is given",
      tag: 'dashboard',
      auth: 'session',
      query: heldPayoutListQuerySchema,
      responses: { 200: { description: 'A page of held payouts', schema: heldPayoutListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const rows = await payoutApprovals.listHeld(userOf(ctx).tenantId, query.status, uuidCursor(query.after), PAGE_SIZE + 1);
        const page = paginate(rows, PAGE_SIZE, (row) => row.id);
        return { status: 200, body: { payouts: page.items.map(presentHeldPayout), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/approvals/:merchantTxRef',
      summary: 'One held payout: what it pays, why it waits, who made it and what became of it',
      tag: 'dashboard',
      auth: 'session',
      params: settlementRefParamsSchema,
      responses: { 200: { description: 'The held payout', schema: heldPayoutSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentHeldPayout(await payoutApprovals.findHeld(userOf(ctx).tenantId, params.merchantTxRef)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/approvals/:merchantTxRef/approve',
      summary:
        'Approve a payout awaiting approval (never one you made: 403 maker_cannot_approve): it runs now as a settlement of the same merchantTxRef; audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'approve_money',
      params: settlementRefParamsSchema,
      freshCode: DECISION_FRESH_CODE,
      responses: { 202: { description: 'Approved: the settlement is on its way (pending)', schema: settleResponseSchema } },
      errors: [403, 404, 409, 429],
      handle: async ({ params, ctx }) => ({
        status: 202,
        body: presentAcceptedSettlement(await payoutApprovals.approve(userOf(ctx), params.merchantTxRef)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/approvals/:merchantTxRef/reject',
      summary: 'Reject a payout awaiting approval, with an optional note: its reserved amount is released; audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'approve_money',
      freshCode: DECISION_FRESH_CODE,
      params: settlementRefParamsSchema,
      body: rejectBodySchema,
      responses: { 200: { description: 'Rejected', schema: settleResponseSchema } },
      errors: [400, 403, 404, 409],
      handle: async ({ params, body, ctx }) => ({
        status: 200,
        body: presentAcceptedSettlement(await payoutApprovals.reject(userOf(ctx), params.merchantTxRef, body.note || null)),
      }),
    }),
  ];
}
