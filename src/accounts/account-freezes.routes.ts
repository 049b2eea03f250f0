import type { AuditActor } from '../audit/audit-log';
import type { AppContext } from '../http/context';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { formatKobo } from '../money';
import { accountRefParamsSchema } from './accounts.schemas';
import { freezeBodySchema, freezeResponseSchema, unfrozenResponseSchema } from './account-freezes.schemas';
import type { AccountFreezesService } from './account-freezes.service';

/** Who is asking: a tenant's API key on /v1, or a dashboard operator (audited by name) on /auth. */
interface Caller {
  tenantId: string;
  user?: AuditActor;
}

function routesAt(
  prefix: '/v1' | '/auth',
  auth: 'apiKey' | 'session',
  callerOf: (ctx: AppContext) => Caller,
  freezes: AccountFreezesService,
) {
  const tag = auth === 'apiKey' ? 'accounts' : 'dashboard';
  // An operator is the dashboard role that moves money; a key needs `freezes:write`.
  const access = auth === 'session' ? { permission: 'operate' as const } : { scope: 'freezes:write' as const };
  return [
    defineRoute({
      method: 'put',
      path: `${prefix}/accounts/:accountRef/freeze`,
      summary:
        'Freeze the account for debits (no money leaves it), credits (money arriving is held until the freeze is lifted) or both; audited',
      tag,
      auth,
      ...access,
      params: accountRefParamsSchema,
      body: freezeBodySchema,
      responses: { 200: { description: 'The freeze', schema: freezeResponseSchema } },
      errors: [400, 403, 404],
      handle: async ({ params, body, ctx }) => {
        const caller = callerOf(ctx);
        const freeze = await freezes.freeze(caller.tenantId, params.accountRef, body, caller.user);
        return { status: 200, body: { ...freeze, frozenAt: freeze.frozenAt.toISOString(), released: formatKobo(freeze.released) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${prefix}/accounts/:accountRef/freeze`,
      summary: "Lift the account's freeze, releasing the credits it held; audited",
      tag,
      auth,
      ...access,
      params: accountRefParamsSchema,
      responses: { 200: { description: 'What was released', schema: unfrozenResponseSchema } },
      errors: [403, 404, 409],
      handle: async ({ params, ctx }) => {
        const caller = callerOf(ctx);
        const released = await freezes.unfreeze(caller.tenantId, params.accountRef, caller.user);
        return { status: 200, body: { accountRef: params.accountRef, released: formatKobo(released) } };
      },
    }),
  ];
}

/** Account freezes, for the tenant's API key (`/v1`) and a dashboard operator (`/auth`). */
export function accountFreezesRoutes(deps: { freezes: AccountFreezesService }): RouteDefinition[] {
  return [
    ...routesAt('/v1', 'apiKey', (ctx) => ({ tenantId: tenantOf(ctx).id }), deps.freezes),
    ...routesAt(
      '/auth',
      'session',
      (ctx) => {
        const user = userOf(ctx);
        return { tenantId: user.tenantId, user };
      },
      deps.freezes,
    ),
  ];
}
