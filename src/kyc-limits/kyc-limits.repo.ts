import type { DbOrTrx } from '../db';
import type { TierLimits } from '../config';
import type { KycTier } from '../policies/kyc-limits/customer-limits';
import { koboFromDb, type Kobo } from '../money';

interface LimitsRow {
  single_credit: string | null;
  balance: string | null;
  daily_debits: string | null;
}

const toLimits = (row: LimitsRow): TierLimits => {
  const limit = (value: string | null): Kobo | null => (value === null ? null : koboFromDb(value));
  return { singleCredit: limit(row.single_credit), balance: limit(row.balance), dailyDebits: limit(row.daily_debits) };
};
const toRow = (limits: TierLimits) => ({
  single_credit: limits.singleCredit,
  balance: limits.balance,
  daily_debits: limits.dailyDebits,
  updated_at: new Date(),
});

/** A tenant's limits per tier and its own limits for one customer: the rows customerLimitsSql resolves. */
export function createKycLimitsRepo(db: DbOrTrx) {
  return {
    async tenantTiers(tenantId: string): Promise<Map<KycTier, TierLimits>> {
      const rows: Array<LimitsRow & { tier: KycTier }> = await db('kyc_tier_limits')
        .where({ tenant_id: tenantId })
        .select('tier', 'single_credit', 'balance', 'daily_debits');
      return new Map(rows.map((row) => [row.tier, toLimits(row)]));
    },

    async setTenantTier(tenantId: string, tier: KycTier, limits: TierLimits): Promise<void> {
      await db('kyc_tier_limits')
        .insert({ tenant_id: tenantId, tier, ...toRow(limits) })
        .onConflict(['tenant_id', 'tier'])
        .merge();
    },

    async clearTenantTier(tenantId: string, tier: KycTier): Promise<boolean> {
      return (await db('kyc_tier_limits').where({ tenant_id: tenantId, tier }).del()) > 0;
    },

    async customerLimits(customerId: string): Promise<TierLimits | undefined> {
      const row: LimitsRow | undefined = await db('customer_kyc_limits')
        .where({ customer_id: customerId })
        .first('single_credit', 'balance', 'daily_debits');
      return row ? toLimits(row) : undefined;
    },

    /** The tenant's customers that have limits of their own, with them. */
    async customersWithLimits(tenantId: string): Promise<Array<{ customerId: string; limits: TierLimits }>> {
      const rows: Array<LimitsRow & { customer_id: string }> = await db('customer_kyc_limits')
        .where({ tenant_id: tenantId })
        .orderBy('customer_id')
        .select('customer_id', 'single_credit', 'balance', 'daily_debits');
      return rows.map((row) => ({ customerId: row.customer_id, limits: toLimits(row) }));
    },

    async setCustomerLimits(tenantId: string, customerId: string, limits: TierLimits): Promise<void> {
      await db('customer_kyc_limits')
        .insert({ customer_id: customerId, tenant_id: tenantId, ...toRow(limits) })
        .onConflict('customer_id')
        .merge();
    },

    async clearCustomerLimits(customerId: string): Promise<boolean> {
      return (await db('customer_kyc_limits').where({ customer_id: customerId }).del()) > 0;
    },
  };
}
