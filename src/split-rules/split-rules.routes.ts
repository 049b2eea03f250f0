import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import type { AuditActor } from '../audit/audit-log';
import type { AppContext } from '../http/context';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { presentSplitRule } from './split-rule.presenter';
import { splitRuleBodySchema, splitRuleResponseSchema } from './split-rules.schemas';
import type { SplitRulesService } from './split-rules.service';

/** Who is asking: a tenant's API key on /v1, or a dashboard user (audited by name) on /auth. */
interface Caller {
  tenantId: string;
  user?: AuditActor;
}

/** The same three routes for an API key (`/v1`) and for a dashboard session (`/auth`; changes are an admin's). */
function routesAt(
  prefix: '/v1' | '/auth',
  auth: 'apiKey' | 'session',
  callerOf: (ctx: AppContext) => Caller,
  splitRules: SplitRulesService,
): RouteDefinition[] {
  const path = `${prefix}/accounts/:accountRef/split-rule`;
  const tag = auth === 'apiKey' ? 'split rules' : 'dashboard';
  return [
    defineRoute({
      method: 'put',
      path,
      summary: "Set the account's split rule: parts of each confirmed payment move to other accounts of the tenant; audited",
      tag,
      auth,
      scope: 'split-rules:write',
      permission: 'set_money_rules',
      params: accountRefParamsSchema,
      body: splitRuleBodySchema,
      responses: { 200: { description: 'The rule as stored', schema: splitRuleResponseSchema } },
      errors: [400, 404],
      handle: async ({ params, body, ctx }) => {
        const caller = callerOf(ctx);
        return { status: 200, body: presentSplitRule(await splitRules.put(caller.tenantId, params.accountRef, body, caller.user)) };
      },
    }),
    defineRoute({
      method: 'get',
      path,
      summary: "The account's split rule",
      tag,
      auth,
      params: accountRefParamsSchema,
      responses: { 200: { description: 'The rule', schema: splitRuleResponseSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentSplitRule(await splitRules.get(callerOf(ctx).tenantId, params.accountRef)),
      }),
    }),
    defineRoute({
      method: 'delete',
      path,
      summary: "Remove the account's split rule: payments confirmed afterwards stay whole; audited",
      tag,
      auth,
      scope: 'split-rules:write',
      permission: 'set_money_rules',
      params: accountRefParamsSchema,
      responses: { 204: { description: 'Removed' } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const caller = callerOf(ctx);
        await splitRules.remove(caller.tenantId, params.accountRef, caller.user);
        return { status: 204 };
      },
    }),
  ];
}

export function splitRulesRoutes(deps: { splitRules: SplitRulesService }): RouteDefinition[] {
  return [
    ...routesAt('/v1', 'apiKey', (ctx) => ({ tenantId: tenantOf(ctx).id }), deps.splitRules),
    ...routesAt(
      '/auth',
      'session',
      (ctx) => {
        const user = userOf(ctx);
        return { tenantId: user.tenantId, user };
      },
      deps.splitRules,
    ),
  ];
}
