import { createAuditLog } from '../audit/audit-log';
import type { TierLimits } from '../config';
import { requireTenantCustomer } from '../customers/customers.access';
import type { Db } from '../db';
import { NotFoundError } from '../errors';
import type { AuthenticatedUser } from '../http/context';
import type { KycTier, TierDefaults } from '../kyc-limits/customer-limits';
import { formatKobo } from '../money';
import { createKycLimitsRepo } from './kyc-limits.repo';

export interface EffectiveTierLimits extends TierLimits {
  tier: KycTier;
  source: 'platform' | 'tenant';
}

const shown = (limits: TierLimits) => {
  const text = (kobo: bigint | null) => (kobo === null ? null : formatKobo(kobo));
  return { singleCredit: text(limits.singleCredit), balance: text(limits.balance), dailyDebits: text(limits.dailyDebits) };
};

/**
 * The limits a tenant's customers live under: the platform's defaults per tier, the tenant's own per tier,
 * an operator's per customer. A change applies to credits and payouts after it; existing holds are
 * re-judged only when they are released.
 */
export function createKycLimitsService(deps: { db: Db; tierDefaults: TierDefaults }) {
  const { db, tierDefaults } = deps;

  return {
    async tiers(tenantId: string): Promise<EffectiveTierLimits[]> {
      const own = await createKycLimitsRepo(db).tenantTiers(tenantId);
      return ([1, 2, 3] as const).map((tier) => {
        const limits = own.get(tier);
        return { tier, ...(limits ?? tierDefaults[tier]), source: limits ? 'tenant' : 'platform' };
      });
    },

    async setTier(user: AuthenticatedUser, tier: KycTier, limits: TierLimits | null): Promise<void> {
      await db.transaction(async (trx) => {
        const repo = createKycLimitsRepo(trx);
        if (limits) await repo.setTenantTier(user.tenantId, tier, limits);
        else await repo.clearTenantTier(user.tenantId, tier);
        await createAuditLog(trx).record(user, 'kyc_limits.changed', { type: 'kyc_tier', id: null }, { tier, limits: limits ? shown(limits) : 'platform defaults' });
      });
    },

    async customer(tenantId: string, customerId: string): Promise<TierLimits | null> {
      const customer = await requireTenantCustomer(db, tenantId, customerId);
      return (await createKycLimitsRepo(db).customerLimits(customer.id)) ?? null;
    },

    async setCustomer(user: AuthenticatedUser, customerId: string, limits: TierLimits | null): Promise<void> {
      await db.transaction(async (trx) => {
        const customer = await requireTenantCustomer(trx, user.tenantId, customerId);
        const repo = createKycLimitsRepo(trx);
        if (limits) await repo.setCustomerLimits(user.tenantId, customer.id, limits);
        else if (!(await repo.clearCustomerLimits(customer.id))) throw new NotFoundError('customer has no limits of its own');
        await createAuditLog(trx).record(user, 'kyc_limits.changed', { type: 'customer', id: customer.id }, { name: customer.name, limits: limits ? shown(limits) : 'the tier limits' });
      });
    },
  };
}

export type KycLimitsService = ReturnType<typeof createKycLimitsService>;
