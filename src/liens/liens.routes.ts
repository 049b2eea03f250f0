import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import type { AuditActor } from '../audit/audit-log';
import type { AppContext } from '../http/context';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { formatKobo } from '../money';
import { lienBodySchema, lienParamsSchema, lienResponseSchema, liftedLienResponseSchema, openLiensResponseSchema } from './liens.schemas';
import type { LiensService } from './liens.service';

/** Who is asking: a tenant's API key on /v1, or a dashboard operator (audited by name) on /auth. */
interface Caller {
  tenantId: string;
  user?: AuditActor;
}

function routesAt(prefix: '/v1' | '/auth', auth: 'apiKey' | 'session', callerOf: (ctx: AppContext) => Caller, liens: LiensService) {
  const tag = auth === 'apiKey' ? 'liens' : 'dashboard';
  // An operator is the dashboard role that moves money; a key needs `liens:write` (setting money aside is no payout).
  const access = auth === 'session' ? { permission: 'operate' as const } : { scope: 'liens:write' as const };
  return [
    defineRoute({
      method: 'get',
      path: `${prefix}/accounts/:accountRef/liens`,
      summary: "The account's liens still open, oldest first",
      tag,
      auth,
      params: accountRefParamsSchema,
      responses: { 200: { description: 'The open liens', schema: openLiensResponseSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const open = await liens.listOpen(callerOf(ctx).tenantId, params.accountRef);
        return {
          status: 200,
          body: {
            liens: open.map((lien) => ({
              lienId: lien.lienId,
              amount: formatKobo(lien.amount),
              held: formatKobo(lien.held),
              reason: lien.reason,
              expiresAt: lien.expiresAt?.toISOString() ?? null,
              placedAt: lien.placedAt.toISOString(),
            })),
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${prefix}/accounts/:accountRef/liens`,
      summary: 'Place a lien on the account: it may spend that much less until the lien is lifted or expires; audited',
      tag,
      auth,
      ...access,
      params: accountRefParamsSchema,
      body: lienBodySchema,
      responses: { 201: { description: 'The lien placed', schema: lienResponseSchema } },
      errors: [400, 403, 404],
      handle: async ({ params, body, ctx }) => {
        const caller = callerOf(ctx);
        const lien = await liens.place(caller.tenantId, params.accountRef, body, caller.user);
        return {
          status: 201,
          body: { ...lien, amount: formatKobo(lien.amount), expiresAt: lien.expiresAt?.toISOString() ?? null },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${prefix}/accounts/:accountRef/liens/:lienId/lift`,
      summary: 'Lift a lien: the account may spend its money again; audited',
      tag,
      auth,
      ...access,
      params: lienParamsSchema,
      responses: { 200: { description: 'What was released', schema: liftedLienResponseSchema } },
      errors: [403, 404, 409],
      handle: async ({ params, ctx }) => {
        const caller = callerOf(ctx);
        const released = await liens.lift(caller.tenantId, params.accountRef, params.lienId, caller.user);
        return { status: 200, body: { lienId: params.lienId, accountRef: params.accountRef, released: formatKobo(released) } };
      },
    }),
  ];
}

/** Liens, for the tenant's API key (`/v1`) and a dashboard operator (`/auth`). */
export function liensRoutes(deps: { liens: LiensService }): RouteDefinition[] {
  return [
    ...routesAt('/v1', 'apiKey', (ctx) => ({ tenantId: tenantOf(ctx).id }), deps.liens),
    ...routesAt(
      '/auth',
      'session',
      (ctx) => {
        const user = userOf(ctx);
        return { tenantId: user.tenantId, user };
      },
      deps.liens,
    ),
  ];
}
