import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import type { AppContext } from '../http/context';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { balanceSweepSchema, putBalanceSweepBodySchema } from './balance-sweeps.schemas';
import type { BalanceSweepActor, BalanceSweepsService } from './balance-sweeps.service';

/**
 * An account's balance sweep for an API key (`/v1`) and for a dashboard session (`/auth`, the account page): setting
 * or stopping it is audited under the caller (a dashboard user by name). On the dashboard every role reads; a sweep
 * moves money, so setting or stopping one is an operator's, as a settle is (roles are a session's).
 */
function routesAt(
  prefix: '/v1' | '/auth',
  auth: 'apiKey' | 'session',
  actorOf: (ctx: AppContext) => BalanceSweepActor,
  balanceSweeps: BalanceSweepsService,
): RouteDefinition[] {
  const onApi = auth === 'apiKey';
  const path = `${prefix}/accounts/:accountRef/sweep`;
  const tag = onApi ? 'balance sweeps' : 'dashboard';
  return [
    defineRoute({
      method: 'put',
      path,
      summary: onApi
        ? "Sweep the account's balance to a saved beneficiary daily at a time (Africa/Lagos) or whenever it is above an amount, keeping `keep` behind"
        : "Set the account's balance sweep (as PUT /v1/accounts/{accountRef}/sweep); audited",
      tag,
      auth,
      scope: 'sweeps:write',
      permission: onApi ? undefined : 'set_money_rules',
      params: accountRefParamsSchema,
      body: putBalanceSweepBodySchema,
      responses: { 200: { description: 'The sweep as set, with its recent runs', schema: balanceSweepSchema } },
      errors: [400, 404],
      handle: async ({ params, body, ctx }) => ({ status: 200, body: await balanceSweeps.put(actorOf(ctx), params.accountRef, body) }),
    }),
    defineRoute({
      method: 'get',
      path,
      summary: onApi
        ? "The account's balance sweep and its recent runs"
        : "The account's balance sweep and its recent runs (as GET /v1/accounts/{accountRef}/sweep)",
      tag,
      auth,
      params: accountRefParamsSchema,
      responses: { 200: { description: 'The sweep, with its recent runs (newest first)', schema: balanceSweepSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({ status: 200, body: await balanceSweeps.get(actorOf(ctx).tenantId, params.accountRef) }),
    }),
    defineRoute({
      method: 'delete',
      path,
      summary: onApi
        ? "Stop the account's balance sweep (its runs stay readable in the settlements they made)"
        : "Stop the account's balance sweep (as DELETE /v1/accounts/{accountRef}/sweep); audited",
      tag,
      auth,
      scope: 'sweeps:write',
      permission: onApi ? undefined : 'set_money_rules',
      params: accountRefParamsSchema,
      responses: { 204: { description: 'Deleted' } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        await balanceSweeps.delete(actorOf(ctx), params.accountRef);
        return { status: 204 };
      },
    }),
  ];
}

export function balanceSweepsRoutes(deps: { balanceSweeps: BalanceSweepsService }): RouteDefinition[] {
  return routesAt('/v1', 'apiKey', (ctx) => ({ tenantId: tenantOf(ctx).id }), deps.balanceSweeps);
}

export function balanceSweepsDashboardRoutes(deps: { balanceSweeps: BalanceSweepsService }): RouteDefinition[] {
  return routesAt('/auth', 'session', userOf, deps.balanceSweeps);
}
