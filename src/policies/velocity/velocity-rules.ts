import type { Kobo } from '../../money';

/**
 * A tenant's velocity rules over payouts: how many payouts, or how much, may leave an account, a customer's accounts
 * or go to one destination bank account within a rolling window, and what happens to the payout that would go past
 * it: refused with the tenant's message, or sent to review (it waits for approval, its money reserved, as a payout
 * the approval policy holds). And over credits: how many payments, or how much, an account or a customer's accounts
 * may receive within a rolling window; the provider has taken a payment's money already, so a credit past a rule is
 * never refused: it lands held (`hold`) with the rule's message, until an operator releases it. The ledger gathers
 * what the window already holds under the locks that serialise what a rule judges; this decides.
 */
export const VELOCITY_SUBJECTS = ['payouts', 'credits'] as const;
export const VELOCITY_MEASURES = ['count', 'amount'] as const;
export const VELOCITY_SCOPES = ['account', 'customer', 'destination'] as const;
export const VELOCITY_ACTIONS = ['refuse', 'review', 'hold'] as const;

/** What a rule over each subject may do with what goes past it, and whose window it counts. */
export const SUBJECT_ACTIONS = { payouts: ['refuse', 'review'], credits: ['hold'] } as const satisfies Record<
  VelocitySubject,
  readonly VelocityAction[]
>;
export const SUBJECT_SCOPES = {
  payouts: ['account', 'customer', 'destination'],
  credits: ['account', 'customer'],
} as const satisfies Record<VelocitySubject, readonly VelocityScope[]>;

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
  /** What a refused payout's caller is told, or why a held credit is held (a refusing or holding rule has one). */
  message: string | null;
}

/** What already left (or, for a credit rule, arrived) in a rule's window, in the rule's scope, before this one. */
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

/** The verdict on a credit: it lands free, or held whole with the first rule past its threshold naming why. */
export type CreditVelocityVerdict = { action: 'allow' } | { action: 'hold'; rule: VelocityRule; message: string };

/** The message a holding rule gives when the tenant wrote none (the schema asks for one; a stored rule always has it). */
const DEFAULT_HOLD = 'this credit goes past a velocity rule of the account';

/**
 * The verdict on a credit of `amount` under the credit rules, each with its window so far (the payments credited in
 * it before this one): held when it takes any rule's window past its threshold (the first such rule, in the order
 * given, names the reason), else allowed. A credit is never refused: its money has arrived.
 */
export function creditVelocity(judged: ReadonlyArray<{ rule: VelocityRule; soFar: WindowSoFar }>, amount: Kobo): CreditVelocityVerdict {
  const holding = judged.find(({ rule, soFar }) => exceeds(rule, soFar, amount))?.rule;
  return holding ? { action: 'hold', rule: holding, message: holding.message ?? DEFAULT_HOLD } : { action: 'allow' };
}
