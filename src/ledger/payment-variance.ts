import type { Kobo } from '../money';

/**
 * How a dynamic account judges a payment: the payment's GROSS amount (what the payer sent, before the
 * provider's fee) against the account's expected amount, under its amount policy. The tables below are the
 * rule; the posting statement applies them in SQL (paymentVarianceSql), under the account's lock, the one
 * place the rule runs. An integration test holds the SQL to the rule as docs/dynamic-accounts.md states it,
 * case by case.
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

/**
 * The same rule in SQL over a payment credit's draft `d` (amount and fee: net and the provider's fee; a reversed
 * payment's restoration, an adjustment, is judged again as a new payment) and its
 * locked account `a` (status, expires_at, expected_amount, amount_policy, on_mismatch): the columns
 * expected_amount, amount_received, variance, action and closes_account, from a FROM item the caller names.
 * Expiry counts from the database's clock when the credit posts: an account past its expires_at is expired
 * even before the sweep marks it so.
 */
export function paymentVarianceSql(draftsWithAccount: string): string {
  return `SELECT j.*,
                 CASE WHEN (j.amount_policy, j.variance) IN (${pairsSql(ACCEPTED)}) THEN 'none'
                      WHEN j.on_mismatch = 'return' THEN 'return' ELSE 'flagged' END AS action,
                 j.expected_amount IS NOT NULL AND (j.amount_policy, j.variance) IN (${pairsSql(CLOSING)}) AS closes_account
            FROM (SELECT d.id, a.tenant_id, a.id AS account_id, a.expected_amount, d.amount + d.fee AS amount_received,
                         a.amount_policy, a.on_mismatch,
                         CASE WHEN a.status <> 'active' OR a.expires_at <= clock_timestamp() THEN 'after_expiry'
                              WHEN a.expected_amount IS NULL OR d.amount + d.fee = a.expected_amount THEN 'exact'
                              WHEN d.amount + d.fee < a.expected_amount THEN 'under' ELSE 'over' END AS variance
                    FROM ${draftsWithAccount}
                   WHERE d.direction = 'credit' AND d.kind IN ('payment', 'adjustment') AND a.amount_policy IS NOT NULL) j`;
}
