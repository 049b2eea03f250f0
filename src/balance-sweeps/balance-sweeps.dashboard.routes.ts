import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { balanceSweepSchema, putBalanceSweepBodySchema } from './balance-sweeps.schemas';
import type { BalanceSweepsService } from './balance-sweeps.service';

/**
 * The account page's balance sweep: the /v1 operations with the signed-in user as the actor (audited by
 * name). Every role reads; setting or stopping a sweep moves money, so it is an operator's, as a settle is.
 */
export function balanceSweepsDashboardRoutes(deps: { balanceSweeps: BalanceSweepsService }): RouteDefinition[] {
  const { balanceSweeps } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/accounts/:accountRef/sweep',
      summary: "The account's balance sweep and its recent runs (as GET /v1/accounts/{accountRef}/sweep)",
      tag: 'dashboard',
      auth: 'session',
      params: accountRefParamsSchema,
      responses: { 200: { description: 'The sweep, with its recent runs (newest first)', schema: balanceSweepSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({ status: 200, body: await balanceSweeps.get(userOf(ctx).tenantId, params.accountRef) }),
    }),
    defineRoute({
      method: 'put',
      path: '/auth/accounts/:accountRef/sweep',
      summary: "Set the account's balance sweep (as PUT /v1/accounts/{accountRef}/sweep); audited",
      tag: 'dashboard',
      auth: 'session',
      role: 'operator',
      params: accountRefParamsSchema,
      body: putBalanceSweepBodySchema,
      responses: { 200: { description: 'The sweep as set, with its recent runs', schema: balanceSweepSchema } },
      errors: [400, 404],
      handle: async ({ params, body, ctx }) => ({ status: 200, body: await balanceSweeps.put(userOf(ctx), params.accountRef, body) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/accounts/:accountRef/sweep',
      summary: "Stop the account's balance sweep (as DELETE /v1/accounts/{accountRef}/sweep); audited",
      tag: 'dashboard',
      auth: 'session',
      role: 'operator',
      params: accountRefParamsSchema,
      responses: { 204: { description: 'Deleted' } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        await balanceSweeps.delete(userOf(ctx), params.accountRef);
        return { status: 204 };
      },
    }),
  ];
}
