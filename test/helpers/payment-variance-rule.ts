// The dynamic accounts' variance rule as docs/dynamic-accounts.md states it, written apart from the ledger's own
// tables (src/policies/dynamic-account-amount/amount-policy.ts) so that the test holding the posting statement's SQL to it checks the
// tables and their SQL both.
type AmountPolicy = 'exact' | 'at_least' | 'at_most' | 'any';
type MismatchHandling = 'credit_and_flag' | 'return';
type Variance = 'exact' | 'under' | 'over' | 'after_expiry';

/** Without an expected amount (policy `any` only) every amount before expiry is the expected one: `exact`. */
export function varianceOf(payment: { received: bigint; expected: bigint | null; afterExpiry: boolean }): Variance {
  if (payment.afterExpiry) return 'after_expiry';
  if (payment.expected === null || payment.received === payment.expected) return 'exact';
  return payment.received < payment.expected ? 'under' : 'over';
}

/** `exact` accepts exact; `at_least` exact or over; `at_most` exact or under; `any` all three; a payment after expiry never. */
export function mismatchActionOf(policy: AmountPolicy, onMismatch: MismatchHandling, variance: Variance): 'none' | 'flagged' | 'return' {
  const accepted =
    variance !== 'after_expiry' &&
    (policy === 'any' ||
      variance === 'exact' ||
      (policy === 'at_least' && variance === 'over') ||
      (policy === 'at_most' && variance === 'under'));
  if (accepted) return 'none';
  return onMismatch === 'return' ? 'return' : 'flagged';
}

/** A payment the policy accepts closes an account with an expected amount, but an `any` account only on the exact amount. */
export function closesAccount(policy: AmountPolicy, onMismatch: MismatchHandling, variance: Variance, expected: bigint | null): boolean {
  if (expected === null || mismatchActionOf(policy, onMismatch, variance) !== 'none') return false;
  return policy !== 'any' || variance === 'exact';
}
