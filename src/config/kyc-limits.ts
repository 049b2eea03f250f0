import { z } from 'zod';
import { parseNairaInput, type Kobo } from '../money';

/** One tier's limits in kobo; null is "no limit". */
export interface TierLimits {
  singleCredit: Kobo | null;
  balance: Kobo | null;
  dailyDebits: Kobo | null;
}

const limit = (text: string): Kobo | null | undefined => (text.trim() === 'none' ? null : (parseNairaInput(text.trim()) ?? undefined));

/** "single credit, balance, daily debits" in naira, each a number or `none`: the platform's defaults for one tier. */
const tierLimits = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx): TierLimits => {
      const parts = text.split(',').map(limit);
      if (parts.length !== 3 || parts.some((part) => part === undefined)) {
        ctx.addIssue({
          code: 'custom',
          message: `expected three limits in naira (single credit, balance, daily debits), each a number or "none", got "${text}"`,
        });
        return z.NEVER;
      }
      const [singleCredit, balance, dailyDebits] = parts as Array<Kobo | null>;
      return { singleCredit: singleCredit!, balance: balance!, dailyDebits: dailyDebits! };
    });

/** The central bank's tiered-KYC limits, the platform defaults a tenant's own limits replace tier by tier. */
export const kycLimitsEnv = z.object({
  KYC_TIER1_LIMITS: tierLimits('50000,300000,50000'),
  KYC_TIER2_LIMITS: tierLimits('100000,500000,200000'),
  KYC_TIER3_LIMITS: tierLimits('none,none,5000000'),
});
