import { formatKobo, type Kobo } from '../../money';

/**
 * The KYC daily payout limit: the money a customer's payouts (settlements, and transfers that leave the customer)
 * take in one Africa/Lagos day may not pass its tier's daily limit. Two sides of one rule: dailyPayoutDecision
 * for a caller that judges a payout in TypeScript under the rows' locks (a transfer), and the SQL builders for the
 * statement that judges it under them itself (a settlement's debit). Both count the day the same way (usedToday /
 * usedTodaySql) and allow the same payouts; their tests run the same cases through both.
 */

/** The Africa/Lagos day of a timestamp (an SQL expression). */
export function lagosDayOf(timestamp: string): string {
  return `CAST(${timestamp} AT TIME ZONE 'Africa/Lagos' AS date)`;
}

/** The customer's current day, in which its daily payout limit counts. */
export const LAGOS_TODAY = lagosDayOf('now()');

/**
 * The day a payout counts in: the day of its debit's own timestamp (`debitedAt`), not of the transaction's start,
 * which may be the day before when the posting waited for a lock across midnight; so the customer's day can be
 * counted again from its entries.
 */
export function payoutDaySql(debitedAt: string): string {
  return lagosDayOf(debitedAt);
}

/**
 * What the customer's payouts have taken today, from the customer's running day (`day`, a date) and its total
 * (`dayTotal`): nothing when the running day is not today. SQL expressions in and out.
 */
export function usedTodaySql(facts: { day: string; dayTotal: string }): string {
  return `CASE WHEN ${facts.day} = ${LAGOS_TODAY} THEN ${facts.dayTotal} ELSE 0 END`;
}

/** Whether the limit allows a payout of `amount` after `usedToday` (a boolean SQL expression; a null limit is no limit). */
export function dailyPayoutAllowsSql(facts: { amount: string; limit: string; usedToday: string }): string {
  return `(${facts.limit} IS NULL OR ${facts.usedToday} + ${facts.amount} <= ${facts.limit})`;
}

/** Where a customer stands against its daily payout limit today. */
export interface DailyPayoutStanding {
  tier: number;
  /** Null: no limit. */
  limit: Kobo | null;
  usedToday: Kobo;
}

export type DailyPayoutDecision = { allowed: true } | { allowed: false; message: string };

/** The refusal the API gives for a payout over the limit: the limit and what is left of it today. */
export function dailyPayoutRefusal(standing: { tier: number; limit: Kobo; usedToday: Kobo }): string {
  const left = standing.limit > standing.usedToday ? standing.limit - standing.usedToday : 0n;
  return `amount exceeds the tier ${standing.tier} daily payout limit of ${formatKobo(standing.limit)} (${formatKobo(left)} left today, Africa/Lagos)`;
}

/** Whether the limit allows a payout of `amount` now; refused with the API's message when it does not. */
export function dailyPayoutDecision(standing: DailyPayoutStanding, amount: Kobo): DailyPayoutDecision {
  if (standing.limit === null || standing.usedToday + amount <= standing.limit) return { allowed: true };
  return { allowed: false, message: dailyPayoutRefusal({ tier: standing.tier, limit: standing.limit, usedToday: standing.usedToday }) };
}
