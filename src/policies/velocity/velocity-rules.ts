import type { Kobo } from '../../money';

/**
 * A tenant's velocity rules over payouts: how many payouts, or how much, may leave an account, a customer's accounts
 * or go to one destination bank account within a rolling window, and what happens to the payout that would go past
 * it: refused with the tenant's message, or sent to review (it waits for approval, its money reserved, as a payout
 * the approval policy holds). The ledger gathers what already left in the window under the locks that serialise the
 * payouts a rule judges; this decides.
 */
export const VELOCITY_SUBJECTS = ['payouts'] as const;
export const VELOCITY_MEASURES = ['count', 'amount'] as const;
export const VELOCITY_SCOPES = ['account', 'customer', 'destination'] as const;
export const VELOCITY_ACTIONS = ['refuse', 'review'] as const;

export type VelocitySubject = (typeof VELOCITY_SUBJECTS)[number];
export type VelocityMeasure = (typeof VELOCITY_MEASURES)[number];
export type VelocityScope = (typeof VELOCITY_SCOPES)[number];
export type VelocityAction = (typeof VELOCITY_ACTIONS)[number];

export interface VelocityRule {
  id: string;
  subject: VelocitySubject;
  measure: VelocityMeasure;
  scope: VelocityScope;
  windowSeconds: number;
  /** The most the window may hold, this payout included: a number of payouts, or kobo. */
  threshold: bigint;
  action: VelocityAction;
  /** What a refused payout's caller is told (a refusing rule has one). */
  message: string | null;
}

/** What already left in a rule's window, in the rule's scope, before this payout. */
export interface WindowSoFar {
  count: bigint;
  amount: Kobo;
}

export type VelocityVerdict =
  { action: 'allow' } | { action: 'review'; rule: VelocityRule } | { action: 'refuse'; rule: VelocityRule; message: string };

/** The message a refusing rule gives when the tenant wrote none (the schema asks for one; a stored rule always has it). */
const DEFAULT_REFUSAL = 'this payout goes past a velocity rule of the account';

/** Whether the payout would take the rule's window past its threshold. */
export function exceeds(rule: VelocityRule, soFar: WindowSoFar, amount: Kobo): boolean {
  return rule.measure === 'count' ? soFar.count + 1n > rule.threshold : soFar.amount + amount > rule.threshold;
}

/**
 * The verdict on a payout of `amount` under the rules, each with its window so far: a refusal wins over a review
 * (the first refusing rule, in the order given, names the message), a review over letting it pass.
 */
export function payoutVelocity(judged: ReadonlyArray<{ rule: VelocityRule; soFar: WindowSoFar }>, amount: Kobo): VelocityVerdict {
  const exceeded = judged.filter(({ rule, soFar }) => exceeds(rule, soFar, amount)).map(({ rule }) => rule);
  const refusing = exceeded.find((rule) => rule.action === 'refuse');
  if (refusing) return { action: 'refuse', rule: refusing, message: refusing.message ?? DEFAULT_REFUSAL };
  const reviewing = exceeded.find((rule) => rule.action === 'review');
  return reviewing ? { action: 'review', rule: reviewing } : { action: 'allow' };
}
