import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { presentScheduledPayout } from './settlement.presenter';
import {
  settlementListQuerySchema,
  settlementListResponseSchema,
  settlementRefParamsSchema,
  settlementViewSchema,
} from './settlements.schemas';
import type { ScheduledPayoutsService } from './scheduled-payouts.service';

const PAGE_SIZE = 50;

/** The dashboard's Scheduled payouts page: the tenant's payouts still to start, and cancelling one (an operator's). */
export function scheduledPayoutsDashboardRoutes(deps: { scheduledPayouts: ScheduledPayoutsService }): RouteDefinition[] {
  const { scheduledPayouts } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/scheduled-payouts',
      summary: "The tenant's payouts still scheduled for later, soonest first (as GET /v1/transfers?scheduled=true)",
      tag: 'dashboard',
      auth: 'session',
      query: settlementListQuerySchema.omit({ scheduled: true }),
      responses: { 200: { description: 'A page of scheduled payouts', schema: settlementListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const limit = query.limit ?? PAGE_SIZE;
        const rows = await scheduledPayouts.list(userOf(ctx).tenantId, uuidCursor(query.after), limit, query.metadata);
        const page = paginate(rows, limit, (payout) => payout.id);
        return { status: 200, body: { transfers: page.items.map(presentScheduledPayout), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/scheduled-payouts/:merchantTxRef/cancel',
      summary: 'Cancel a scheduled payout before it starts (as POST /v1/transfers/{merchantTxRef}/cancel); audited under the user',
      tag: 'dashboard',
      auth: 'session',
      permission: 'move_money',
      params: settlementRefParamsSchema,
      responses: { 200: { description: 'The payout, cancelled', schema: settlementViewSchema } },
      errors: [404, 409],
      handle: async ({ params, ctx }) => {
        const cancelled = await scheduledPayouts.cancel(userOf(ctx), params.merchantTxRef);
        return { status: 200, body: presentScheduledPayout(cancelled) };
      },
    }),
  ];
}
