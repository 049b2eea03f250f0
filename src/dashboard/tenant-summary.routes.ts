import type { Db } from '../db';
import type { RateLimits } from '../rate-limits/rate-limits';
import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { countOnce } from '../http/count-once';
import { formatKobo } from '../money';
import { BUSINESS_TIME_ZONE, createTenantSummaryRepo } from './tenant-summary.repo';
import { tenantSummarySchema } from './tenant-summary.schemas';

export function tenantSummaryRoutes(deps: { db: Db; limits: Pick<RateLimits, 'overview'> }): RouteDefinition[] {
  const summary = createTenantSummaryRepo(deps.db);
  return [
    defineRoute({
      method: 'get',
      path: '/auth/overview',
      summary: "The tenant's balances across accounts, 30 days of inflow and outflow, and what needs attention",
      tag: 'dashboard',
      auth: 'session',
      responses: { 200: { description: 'The overview', schema: tenantSummarySchema } },
      errors: [429],
      handle: async ({ ctx }) => {
        const tenantId = userOf(ctx).tenantId;
        await countOnce(ctx, 'overview', () => deps.limits.overview.consume(tenantId));
        const [balances, days, attention] = await Promise.all([
          summary.balances(tenantId),
          summary.dailyFlows(tenantId),
          summary.attention(tenantId),
        ]);
        const today = days[days.length - 1]!;
        const sum = (pick: (day: (typeof days)[number]) => bigint) => days.reduce((total, day) => total + pick(day), 0n);
        return {
          status: 200,
          body: {
            asOf: new Date().toISOString(),
            timeZone: BUSINESS_TIME_ZONE,
            balances: {
              accounts: balances.accounts,
              ledgerBalance: formatKobo(balances.ledgerBalance),
              availableBalance: formatKobo(balances.ledgerBalance - balances.pendingCredits),
              pendingCredits: formatKobo(balances.pendingCredits),
            },
            flows: {
              today: { day: today.day, inflow: formatKobo(today.inflow), outflow: formatKobo(today.outflow) },
              last30Days: { inflow: formatKobo(sum((day) => day.inflow)), outflow: formatKobo(sum((day) => day.outflow)) },
              days: days.map((day) => ({ day: day.day, inflow: formatKobo(day.inflow), outflow: formatKobo(day.outflow) })),
            },
            attention,
          },
        };
      },
    }),
  ];
}
