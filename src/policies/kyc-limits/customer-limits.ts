import type { TierLimits } from '../../config';
import { formatKobo } from '../../money';

export type KycTier = 1 | 2 | 3;

/** The platform's default limits per tier (from the configuration). */
export type TierDefaults = Readonly<Record<KycTier, TierLimits>>;

export function tierDefaultsOf(config: {
  KYC_TIER1_LIMITS: TierLimits;
  KYC_TIER2_LIMITS: TierLimits;
  KYC_TIER3_LIMITS: TierLimits;
}): TierDefaults {
  return { 1: config.KYC_TIER1_LIMITS, 2: config.KYC_TIER2_LIMITS, 3: config.KYC_TIER3_LIMITS };
}

/** The binding every statement reading `customerLimitsSql` needs. */
export function kycLimitBindings(defaults: TierDefaults): { kyc_default_limits: string } {
  const text = (kobo: bigint | null) => (kobo === null ? null : kobo.toString());
  return {
    kyc_default_limits: JSON.stringify(
      ([1, 2, 3] as const).map((tier) => ({
        tier,
        single_credit: text(defaults[tier].singleCredit),
        balance: text(defaults[tier].balance),
        daily_debits: text(defaults[tier].dailyDebits),
      })),
    ),
  };
}

/**
 * The limits that apply to each customer `customersFrom` lists (a FROM item with columns id, tenant_id and
 * kyc_tier: a locked row's, so a tier raised meanwhile counts), as a relation with columns customer_id, tier,
 * single_credit, balance, daily_debits (kobo; null is no limit). The one place limits are resolved: the
 * customer's own limits, else the tenant's for the customer's tier, else the platform's defaults for it (the
 * binding from kycLimitBindings).
 */
export function customerLimitsSql(customersFrom: string): string {
  const pick = (column: string) =>
    `CASE WHEN o.customer_id IS NOT NULL THEN o.${column} WHEN t.tenant_id IS NOT NULL THEN t.${column} ELSE d.${column} END AS ${column}`;
  return `SELECT c.id AS customer_id, c.kyc_tier AS tier, ${pick('single_credit')}, ${pick('balance')}, ${pick('daily_debits')}
      FROM ${customersFrom} c
      LEFT JOIN customer_kyc_limits o ON o.customer_id = c.id
      LEFT JOIN kyc_tier_limits t ON t.tenant_id = c.tenant_id AND t.tier = c.kyc_tier
      LEFT JOIN jsonb_to_recordset(CAST(:kyc_default_limits AS jsonb)) AS d(tier int, single_credit bigint, balance bigint, daily_debits bigint)
             ON d.tier = c.kyc_tier`;
}

const LIMIT_NAMES = ['singleCredit', 'balance', 'dailyDebits'] as const;

/** A limit is looser than another when it allows more: no limit is looser than any amount. */
const looser = (limit: bigint | null, than: bigint | null): boolean => than !== null && (limit === null || limit > than);

/** Each limit of `limits` looser than the platform's for the tier, as `name: limit (platform's: limit)`; empty when none is. */
export function looserThanDefaults(limits: TierLimits, defaults: TierLimits): string[] {
  const shown = (kobo: bigint | null) => (kobo === null ? 'no limit' : formatKobo(kobo));
  return LIMIT_NAMES.filter((name) => looser(limits[name], defaults[name])).map(
    (name) => `${name} ${shown(limits[name])} (platform's ${shown(defaults[name])})`,
  );
}

/** `limits` with each limit looser than the platform's for the tier replaced by the platform's. */
export function withinDefaults(limits: TierLimits, defaults: TierLimits): TierLimits {
  const within = (name: (typeof LIMIT_NAMES)[number]) => (looser(limits[name], defaults[name]) ? defaults[name] : limits[name]);
  return { singleCredit: within('singleCredit'), balance: within('balance'), dailyDebits: within('dailyDebits') };
}
