import type { AuditActor } from '../audit/audit-log';
import type { AppContext } from '../http/context';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { velocityRuleBodySchema, velocityRuleListSchema, velocityRuleParamsSchema, velocityRuleSchema } from './velocity-rules.schemas';
import type { VelocityRulesService } from './velocity-rules.service';

/** Who is asking: a tenant's API key on /v1, or a dashboard user (audited by name) on /auth. */
interface Caller {
  tenantId: string;
  user?: AuditActor;
}

/** The same routes for an API key (`/v1`, the `velocity-rules:write` scope) and a dashboard session (`/auth`, `set_money_rules`). */
function routesAt(
  prefix: '/v1' | '/auth',
  auth: 'apiKey' | 'session',
  callerOf: (ctx: AppContext) => Caller,
  rules: VelocityRulesService,
): RouteDefinition[] {
  const path = `${prefix}/velocity-rules`;
  const tag = auth === 'apiKey' ? 'velocity rules' : 'dashboard';
  return [
    defineRoute({
      method: 'get',
      path,
      summary: "The tenant's velocity rules",
      tag,
      auth,
      responses: { 200: { description: 'The rules, oldest first', schema: velocityRuleListSchema } },
      handle: async ({ ctx }) => ({ status: 200, body: { data: await rules.list(callerOf(ctx).tenantId) } }),
    }),
    defineRoute({
      method: 'post',
      path,
      summary: 'Add a velocity rule: payouts past it within its window are refused with its message or sent to review; audited',
      tag,
      auth,
      scope: 'velocity-rules:write',
      permission: 'set_money_rules',
      body: velocityRuleBodySchema,
      responses: { 201: { description: 'The rule as stored', schema: velocityRuleSchema } },
      errors: [400],
      handle: async ({ body, ctx }) => {
        const caller = callerOf(ctx);
        return { status: 201, body: await rules.create(caller.tenantId, body, caller.user) };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${path}/:id`,
      summary: 'One velocity rule',
      tag,
      auth,
      params: velocityRuleParamsSchema,
      responses: { 200: { description: 'The rule', schema: velocityRuleSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({ status: 200, body: await rules.get(callerOf(ctx).tenantId, params.id) }),
    }),
    defineRoute({
      method: 'put',
      path: `${path}/:id`,
      summary: 'Replace a velocity rule whole; audited',
      tag,
      auth,
      scope: 'velocity-rules:write',
      permission: 'set_money_rules',
      params: velocityRuleParamsSchema,
      body: velocityRuleBodySchema,
      responses: { 200: { description: 'The rule as stored', schema: velocityRuleSchema } },
      errors: [400, 404],
      handle: async ({ params, body, ctx }) => {
        const caller = callerOf(ctx);
        return { status: 200, body: await rules.update(caller.tenantId, params.id, body, caller.user) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${path}/:id`,
      summary: 'Remove a velocity rule; audited',
      tag,
      auth,
      scope: 'velocity-rules:write',
      permission: 'set_money_rules',
      params: velocityRuleParamsSchema,
      responses: { 204: { description: 'Removed' } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const caller = callerOf(ctx);
        await rules.remove(caller.tenantId, params.id, caller.user);
        return { status: 204 };
      },
    }),
  ];
}

export function velocityRulesRoutes(deps: { velocityRules: VelocityRulesService }): RouteDefinition[] {
  return [
    ...routesAt('/v1', 'apiKey', (ctx) => ({ tenantId: tenantOf(ctx).id }), deps.velocityRules),
    ...routesAt(
      '/auth',
      'session',
      (ctx) => {
        const user = userOf(ctx);
        return { tenantId: user.tenantId, user };
      },
      deps.velocityRules,
    ),
  ];
}
