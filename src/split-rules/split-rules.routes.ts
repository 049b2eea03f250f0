import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import { defineRoute, tenantOf, type RouteDefinition } from '../http/route';
import { presentSplitRule } from './split-rule.presenter';
import { splitRuleBodySchema, splitRuleResponseSchema } from './split-rules.schemas';
import type { SplitRulesService } from './split-rules.service';

export function splitRulesRoutes(deps: { splitRules: SplitRulesService }): RouteDefinition[] {
  const { splitRules } = deps;
  const path = '/v1/accounts/:accountRef/split-rule';
  return [
    defineRoute({
      method: 'put',
      path,
      summary: "Set the account's split rule: parts of each confirmed payment move to other accounts of the tenant",
      tag: 'split rules',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      body: splitRuleBodySchema,
      responses: { 200: { description: 'The rule as stored', schema: splitRuleResponseSchema } },
      errors: [400, 404],
      handle: async ({ params, body, ctx }) => ({
        status: 200,
        body: presentSplitRule(await splitRules.put(tenantOf(ctx).id, params.accountRef, body)),
      }),
    }),
    defineRoute({
      method: 'get',
      path,
      summary: "The account's split rule",
      tag: 'split rules',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      responses: { 200: { description: 'The rule', schema: splitRuleResponseSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentSplitRule(await splitRules.get(tenantOf(ctx).id, params.accountRef)),
      }),
    }),
    defineRoute({
      method: 'delete',
      path,
      summary: "Remove the account's split rule: payments confirmed afterwards stay whole",
      tag: 'split rules',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      responses: { 204: { description: 'Removed' } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        await splitRules.remove(tenantOf(ctx).id, params.accountRef);
        return { status: 204 };
      },
    }),
  ];
}
