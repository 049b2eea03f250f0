import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import { defineRoute, tenantOf, type RouteDefinition } from '../http/route';
import { balanceSweepSchema, putBalanceSweepBodySchema } from './balance-sweeps.schemas';
import type { BalanceSweepsService } from './balance-sweeps.service';

export function balanceSweepsRoutes(deps: { balanceSweeps: BalanceSweepsService }): RouteDefinition[] {
  const { balanceSweeps } = deps;
  return [
    defineRoute({
      method: 'put',
      path: '/v1/accounts/:accountRef/sweep',
      summary:
        "Sweep the account's balance to a saved beneficiary daily at a time (Africa/Lagos) or whenever it is above an amount, keeping `keep` behind",
      tag: 'balance sweeps',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      body: putBalanceSweepBodySchema,
      responses: { 200: { description: 'The sweep as set, with its recent runs', schema: balanceSweepSchema } },
      errors: [400, 404],
      handle: async ({ params, body, ctx }) => ({
        status: 200,
        body: await balanceSweeps.put({ tenantId: tenantOf(ctx).id }, params.accountRef, body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/accounts/:accountRef/sweep',
      summary: "The account's balance sweep and its recent runs",
      tag: 'balance sweeps',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      responses: { 200: { description: 'The sweep, with its recent runs (newest first)', schema: balanceSweepSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({ status: 200, body: await balanceSweeps.get(tenantOf(ctx).id, params.accountRef) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/accounts/:accountRef/sweep',
      summary: "Stop the account's balance sweep (its runs stay readable in the settlements they made)",
      tag: 'balance sweeps',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      responses: { 204: { description: 'Deleted' } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        await balanceSweeps.delete({ tenantId: tenantOf(ctx).id }, params.accountRef);
        return { status: 204 };
      },
    }),
  ];
}
