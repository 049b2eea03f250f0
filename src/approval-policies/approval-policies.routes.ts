import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { approvalPolicySchema, putApprovalPolicyBodySchema } from './approval-policies.schemas';
import type { ApprovalPoliciesService } from './approval-policies.service';

/** The tenant's approval policy: a person's setting on the dashboard (a key never changes what holds its own payouts). */
export function approvalPoliciesDashboardRoutes(deps: { approvalPolicies: ApprovalPoliciesService }): RouteDefinition[] {
  const { approvalPolicies } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/approval-policy',
      summary: "The tenant's approval policy (enabled false: every payout runs at once)",
      tag: 'dashboard',
      auth: 'session',
      responses: { 200: { description: 'The policy', schema: approvalPolicySchema } },
      handle: async ({ ctx }) => ({ status: 200, body: await approvalPolicies.view(userOf(ctx).tenantId) }),
    }),
    defineRoute({
      method: 'put',
      path: '/auth/approval-policy',
      summary:
        'Set the approval policy: payouts at or above an amount, and the first payout to a new destination, wait for a second person; audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'set_money_rules',
      body: putApprovalPolicyBodySchema,
      responses: { 200: { description: 'The policy as stored', schema: approvalPolicySchema } },
      errors: [400],
      handle: async ({ body, ctx }) => ({ status: 200, body: await approvalPolicies.put(userOf(ctx), body) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/approval-policy',
      summary: 'Turn the approval policy off: payouts run at once (those waiting still wait); audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'set_money_rules',
      responses: { 204: { description: 'Off' } },
      handle: async ({ ctx }) => {
        await approvalPolicies.remove(userOf(ctx));
        return { status: 204 };
      },
    }),
  ];
}
