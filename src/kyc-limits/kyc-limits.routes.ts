import type { TierLimits } from '../config';
import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { formatKobo } from '../money';
import {
  customerLimitsParamsSchema,
  customerLimitsResponseSchema,
  limitsBodySchema,
  tierLimitsResponseSchema,
  tierParamsSchema,
} from './holds.schemas';
import type { KycLimitsService } from './kyc-limits.service';

const shown = (limits: TierLimits) => {
  const text = (kobo: bigint | null) => (kobo === null ? null : formatKobo(kobo));
  return { singleCredit: text(limits.singleCredit), balance: text(limits.balance), dailyDebits: text(limits.dailyDebits) };
};

/** The KYC limits a tenant's customers live under: per tier and per customer, set by admins, audited. */
export function kycLimitsRoutes(deps: { kycLimits: KycLimitsService }): RouteDefinition[] {
  const { kycLimits } = deps;
  const tiers = async (tenantId: string) => ({
    status: 200 as const,
    body: { tiers: (await kycLimits.tiers(tenantId)).map((tier) => ({ tier: tier.tier, source: tier.source, ...shown(tier) })) },
  });
  const customerLimits = async (tenantId: string, id: string) => {
    const limits = await kycLimits.customer(tenantId, id);
    return { status: 200 as const, body: { limits: limits ? shown(limits) : null } };
  };
  return [
    defineRoute({
      method: 'get',
      path: '/auth/kyc-limits',
      summary: 'The limits of each KYC tier, in naira (null: no limit), and whether they are the platform’s or the tenant’s own',
      tag: 'dashboard',
      auth: 'session',
      responses: { 200: { description: 'The limits per tier', schema: tierLimitsResponseSchema } },
      handle: async ({ ctx }) => tiers(userOf(ctx).tenantId),
    }),
    defineRoute({
      method: 'put',
      path: '/auth/kyc-limits/:tier',
      summary:
        'Set the tenant’s own limits for a tier (its partner bank’s), for credits and payouts from now on; none looser than the platform’s unless the platform operator allowed it',
      tag: 'dashboard',
      auth: 'session',
      params: tierParamsSchema,
      body: limitsBodySchema,
      responses: { 200: { description: 'The limits per tier', schema: tierLimitsResponseSchema } },
      errors: [400, 403],
      handle: async ({ params, body, ctx }) => {
        await kycLimits.setTier(userOf(ctx), params.tier, body);
        return tiers(userOf(ctx).tenantId);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/kyc-limits/:tier',
      summary: 'Return a tier to the platform’s limits',
      tag: 'dashboard',
      auth: 'session',
      params: tierParamsSchema,
      responses: { 200: { description: 'The limits per tier', schema: tierLimitsResponseSchema } },
      errors: [400, 403],
      handle: async ({ params, ctx }) => {
        await kycLimits.setTier(userOf(ctx), params.tier, null);
        return tiers(userOf(ctx).tenantId);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/customers/:id/kyc-limits',
      summary: 'The customer’s own limits (null: the tier’s apply)',
      tag: 'dashboard',
      auth: 'session',
      params: customerLimitsParamsSchema,
      responses: { 200: { description: 'The customer’s limits', schema: customerLimitsResponseSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => customerLimits(userOf(ctx).tenantId, params.id),
    }),
    defineRoute({
      method: 'put',
      path: '/auth/customers/:id/kyc-limits',
      summary:
        'Set limits for one customer, whatever its tier (audited); none looser than the platform’s for its tier unless the platform operator allowed it',
      tag: 'dashboard',
      auth: 'session',
      permission: 'set_money_rules',
      params: customerLimitsParamsSchema,
      body: limitsBodySchema,
      responses: { 200: { description: 'The customer’s limits', schema: customerLimitsResponseSchema } },
      errors: [400, 403, 404],
      handle: async ({ params, body, ctx }) => {
        await kycLimits.setCustomer(userOf(ctx), params.id, body);
        return customerLimits(userOf(ctx).tenantId, params.id);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/customers/:id/kyc-limits',
      summary: 'Return a customer to its tier’s limits (audited)',
      tag: 'dashboard',
      auth: 'session',
      permission: 'set_money_rules',
      params: customerLimitsParamsSchema,
      responses: { 200: { description: 'The customer’s limits', schema: customerLimitsResponseSchema } },
      errors: [403, 404],
      handle: async ({ params, ctx }) => {
        await kycLimits.setCustomer(userOf(ctx), params.id, null);
        return customerLimits(userOf(ctx).tenantId, params.id);
      },
    }),
  ];
}
