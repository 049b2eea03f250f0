import type { Kobo } from '../../money';

/**
 * How a dynamic account judges a payment: the payment's GROSS amount (what the payer sent, before the
 * provider's fee) against the account's expected amount, under its amount policy, and whether the payment
 * closes the account. The tables below are the rule; the posting statement applies them in SQL through the
 * builders below, under the account's lock, the one place the rule runs: it hands in its own expressions for
 * the facts (the payment's amounts, the account's policy columns, the clock) and applies the decision (hold a
 * payment to return whole, record the judgement, close the account). The policy's test holds the SQL to the
 * rule as docs/dynamic-accounts.md states it, case by case.
 */
export const AMOUNT_POLICIES = ['exact', 'at_least', 'at_most', 'any'] as const;
export type AmountPolicy = (typeof AMOUNT_POLICIES)[number];

export const MISMATCH_HANDLINGS = ['credit_and_flag', 'return'] as const;
export type MismatchHandling = (typeof MISMATCH_HANDLINGS)[number];

export const VARIANCES = ['exact', 'under', 'over', 'after_expiry'] as const;
export type Variance = (typeof VARIANCES)[number];

/** What became of a payment: accepted as it is (`none`), credited and flagged, or credited, held and returned to its payer. */
export const MISMATCH_ACTIONS = ['none', 'flagged', 'return'] as const;
export type MismatchAction = (typeof MISMATCH_ACTIONS)[number];

/** How a dynamic account judged a payment credit. */
export interface PaymentJudgement {
  expectedAmount: Kobo | null;
  /** The payment's gross amount: what the payer sent. */
  amountReceived: Kobo;
  variance: Variance;
  action: MismatchAction;
}

/** The variances each policy accepts; any other is a mismatch. A payment after expiry is never accepted. */
const ACCEPTED: Record<AmountPolicy, readonly Variance[]> = {
  exact: ['exact'],
  at_least: ['exact', 'over'],
  at_most: ['exact', 'under'],
  any: ['exact', 'under', 'over'],
};

/**
 * The accepted variances that close the account once the payment is confirmed (only with an expected amount):
 * `exact`, `at_least` and `at_most` take one payment; `any` takes every amount until one of exactly the expected.
 */
const CLOSING: Record<AmountPolicy, readonly Variance[]> = {
  exact: ['exact'],
  at_least: ['exact', 'over'],
  at_most: ['exact', 'under'],
  any: ['exact'],
};

const pairsSql = (table: Record<AmountPolicy, readonly Variance[]>): string =>
  Object.entries(table)
    .flatMap(([policy, variances]) => variances.map((variance) => `('${policy}', '${variance}')`))
    .join(', ');

/** A dynamic account's columns and a payment credit's amounts, as SQL expressions the caller hands in. */
export interface PaymentFactsSql {
  /** The credit's net amount and the provider's fee: the payer sent their sum. */
  amount: string;
  fee: string;
  /** The account's status, expires_at and expected_amount. */
  status: string;
  expiresAt: string;
  expectedAmount: string;
  /** The time the payment counts at. */
  clock: string;
}

/**
 * The variance of a payment credit to a dynamic account (a reversed payment's restoration, an adjustment, is judged
 * again as a new payment). Expiry counts from `clock`: an account past its expires_at is expired even before the
 * expiry job marks it so.
 */
export function varianceSql(facts: PaymentFactsSql): string {
  return `CASE WHEN ${facts.status} <> 'active' OR ${facts.expiresAt} <= ${facts.clock} THEN 'after_expiry'
                              WHEN ${facts.expectedAmount} IS NULL OR ${facts.amount} + ${facts.fee} = ${facts.expectedAmount} THEN 'exact'
                              WHEN ${facts.amount} + ${facts.fee} < ${facts.expectedAmount} THEN 'under' ELSE 'over' END`;
}

/** What becomes of a payment of `variance` under the account's policy: `none`, `flagged` or `return` (SQL expressions in and out). */
export function mismatchActionSql(judged: { amountPolicy: string; onMismatch: string; variance: string }): string {
  return `CASE WHEN (${judged.amountPolicy}, ${judged.variance}) IN (${pairsSql(ACCEPTED)}) THEN 'none'
                      WHEN ${judged.onMismatch} = 'return' THEN 'return' ELSE 'flagged' END`;
}

/** Whether a payment of `variance`, once confirmed, closes the account (a boolean SQL expression). */
export function closesOnPaymentSql(judged: { expectedAmount: string; amountPolicy: string; variance: string }): string {
  return `${judged.expectedAmount} IS NOT NULL AND (${judged.amountPolicy}, ${judged.variance}) IN (${pairsSql(CLOSING)})`;
}

/**
 * Whether a payment credit is held whole to return to its payer: only a dynamic account that returns mismatches
 * asks for the judgement (`judgedReturn`, a boolean SQL expression the caller builds over mismatchActionSql's
 * result), so an ordinary account's credit is decided from its row alone.
 */
export function heldToReturnSql(account: { amountPolicy: string; onMismatch: string; judgedReturn: string }): string {
  return `CASE WHEN ${account.amountPolicy} IS NULL OR ${account.onMismatch} <> 'return' THEN false
                       ELSE ${account.judgedReturn} END`;
}

/** The reason a payment is held whole to return: its amount does not match the account's policy. */
export const HELD_TO_RETURN_REASONS = ['amount_mismatch'] as const;

/**
 * Why a payment held to return is held (`reason`) and the limit it missed (`limitAmount`: the account's expected
 * amount, 0 when it has none). SQL expressions in and out.
 */
export function heldToReturnReasonSql(facts: { expectedAmount: string }): { reason: string; limitAmount: string } {
  return { reason: `'${HELD_TO_RETURN_REASONS[0]}'`, limitAmount: `coalesce(${facts.expectedAmount}, 0)` };
}

/**
 * Whether a confirmed credit closes its account (a boolean SQL expression): only an active account closes; one
 * opened for an expected amount (no amount policy), on a credit of that gross amount (`grossMatches`); a dynamic
 * account, on a credit whose judgement closes it (`judgementCloses`, see closesOnPaymentSql).
 */
export function closesAccountSql(account: { status: string; amountPolicy: string; grossMatches: string; judgementCloses: string }): string {
  return `(${account.status} = 'active' AND CASE WHEN ${account.amountPolicy} IS NULL THEN ${account.grossMatches} ELSE ${account.judgementCloses} END)`;
}
