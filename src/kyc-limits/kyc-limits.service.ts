import { createAuditLog } from '../audit/audit-log';
import { looseKycLimitsAllowed, setLooseKycLimitsAllowed } from '../auth/tenants.access';
import type { TierLimits } from '../config';
import { requireTenantCustomer } from '../customers/customers.access';
import type { Db, Trx } from '../db';
import { AppError, NotFoundError } from '../errors';
import type { AuthenticatedUser } from '../http/context';
import { isUuid } from '../ids';
import { looserThanDefaults, withinDefaults, type KycTier, type TierDefaults } from '../policies/kyc-limits/customer-limits';
import { formatKobo } from '../money';
import { createKycLimitsRepo } from './kyc-limits.repo';

export interface EffectiveTierLimits extends TierLimits {
  tier: KycTier;
  source: 'platform' | 'tenant';
}

/** The actor the audit log names for the platform operator's changes (made at the CLI). */
const PLATFORM_OPERATOR = 'platform operator';

const shown = (limits: TierLimits) => {
  const text = (kobo: bigint | null) => (kobo === null ? null : formatKobo(kobo));
  return { singleCredit: text(limits.singleCredit), balance: text(limits.balance), dailyDebits: text(limits.dailyDebits) };
};

const sameLimits = (left: TierLimits, right: TierLimits): boolean =>
  left.singleCredit === right.singleCredit && left.balance === right.balance && left.dailyDebits === right.dailyDebits;

class LooserLimitsError extends AppError {
  constructor(tierNamed: string, looser: string[]) {
    super(
      'forbidden',
      'limits_looser_than_platform',
      `limits looser than the platform's for ${tierNamed}: ${looser.join(', ')}; only the platform operator can allow this tenant looser limits`,
    );
  }
}

/**
 * The limits a tenant's customers live under: the platform's defaults per tier, the tenant's own per tier,
 * the tenant's own for one customer. A change applies to credits and payouts after it; existing holds are
 * re-judged only when they are released. No limit the tenant sets may be looser than the platform's for the
 * tier unless the platform operator allowed the tenant looser limits.
 */
export function createKycLimitsService(deps: { db: Db; tierDefaults: TierDefaults }) {
  const { db, tierDefaults } = deps;

  /** Refuses limits looser than the platform's for the tier, unless the tenant is allowed them (read under the tenant's share lock). */
  async function refuseLooser(trx: Trx, tenantId: string, tier: KycTier, tierNamed: string, limits: TierLimits): Promise<void> {
    const looser = looserThanDefaults(limits, tierDefaults[tier]);
    if (looser.length > 0 && !(await looseKycLimitsAllowed(trx, tenantId))) throw new LooserLimitsError(tierNamed, looser);
  }

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
        if (limits) {
          await refuseLooser(trx, user.tenantId, tier, `tier ${tier}`, limits);
          await repo.setTenantTier(user.tenantId, tier, limits);
        } else await repo.clearTenantTier(user.tenantId, tier);
        await createAuditLog(trx).record(
          user,
          'kyc_limits.changed',
          { type: 'kyc_tier', id: null },
          { tier, limits: limits ? shown(limits) : 'platform defaults' },
        );
      });
    },

    async customer(tenantId: string, customerId: string): Promise<TierLimits | null> {
      const customer = await requireTenantCustomer(db, tenantId, customerId);
      return (await createKycLimitsRepo(db).customerLimits(customer.id)) ?? null;
    },

    /** Judged against the platform's limits for the customer's tier now. */
    async setCustomer(user: AuthenticatedUser, customerId: string, limits: TierLimits | null): Promise<void> {
      await db.transaction(async (trx) => {
        const customer = await requireTenantCustomer(trx, user.tenantId, customerId);
        const repo = createKycLimitsRepo(trx);
        if (limits) {
          await refuseLooser(trx, user.tenantId, customer.kyc_tier, `tier ${customer.kyc_tier}, the customer's`, limits);
          await repo.setCustomerLimits(user.tenantId, customer.id, limits);
        } else if (!(await repo.clearCustomerLimits(customer.id))) throw new NotFoundError('customer has no limits of its own');
        await createAuditLog(trx).record(
          user,
          'kyc_limits.changed',
          { type: 'customer', id: customer.id },
          { name: customer.name, limits: limits ? shown(limits) : 'the tier limits' },
        );
      });
    },

    /**
     * The platform operator's allowance of limits looser than the platform's for the tenant. Revoking it brings
     * each looser limit the tenant set back to the platform's, in the tenant's audit log; what it tightened.
     */
    async setLooseLimitsAllowed(tenantId: string, allowed: boolean): Promise<{ tightened: string[] }> {
      if (!isUuid(tenantId)) throw new NotFoundError('tenant not found');
      return db.transaction(async (trx) => {
        // The tenant's row first: a change of limits checking the allowance waits for it, or it for that change.
        if (!(await setLooseKycLimitsAllowed(trx, tenantId, allowed))) throw new NotFoundError('tenant not found');
        if (allowed) return { tightened: [] };
        const repo = createKycLimitsRepo(trx);
        const audit = createAuditLog(trx);
        const tightened: string[] = [];
        for (const [tier, limits] of await repo.tenantTiers(tenantId)) {
          const within = withinDefaults(limits, tierDefaults[tier]);
          if (sameLimits(within, limits)) continue;
          await repo.setTenantTier(tenantId, tier, within);
          await audit.recordAs(
            tenantId,
            PLATFORM_OPERATOR,
            'kyc_limits.changed',
            { type: 'kyc_tier', id: null },
            { tier, limits: shown(within), reason: 'looser limits no longer allowed' },
          );
          tightened.push(`tier ${tier}`);
        }
        for (const { customerId, limits } of await repo.customersWithLimits(tenantId)) {
          const customer = await requireTenantCustomer(trx, tenantId, customerId);
          const within = withinDefaults(limits, tierDefaults[customer.kyc_tier]);
          if (sameLimits(within, limits)) continue;
          await repo.setCustomerLimits(tenantId, customer.id, within);
          await audit.recordAs(
            tenantId,
            PLATFORM_OPERATOR,
            'kyc_limits.changed',
            { type: 'customer', id: customer.id },
            { name: customer.name, limits: shown(within), reason: 'looser limits no longer allowed' },
          );
          tightened.push(`customer ${customer.id}`);
        }
        return { tightened };
      });
    },
  };
}

export type KycLimitsService = ReturnType<typeof createKycLimitsService>;
