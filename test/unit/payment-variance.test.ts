import assert from 'node:assert/strict';
import { closesAccount, mismatchActionOf, varianceOf, type AmountPolicy, type Variance } from '../../src/ledger/payment-variance';

describe('dynamic accounts: the variance rule', () => {
  it("judges the payment's gross amount against the expected amount, and anything after expiry as after_expiry", () => {
    assert.equal(varianceOf({ received: 10_000n, expected: 10_000n, afterExpiry: false }), 'exact');
    assert.equal(varianceOf({ received: 9_999n, expected: 10_000n, afterExpiry: false }), 'under');
    assert.equal(varianceOf({ received: 10_001n, expected: 10_000n, afterExpiry: false }), 'over');
    assert.equal(varianceOf({ received: 10_000n, expected: 10_000n, afterExpiry: true }), 'after_expiry');
    assert.equal(varianceOf({ received: 1n, expected: null, afterExpiry: false }), 'exact', 'no expected amount: every amount is it');
    assert.equal(varianceOf({ received: 1n, expected: null, afterExpiry: true }), 'after_expiry');
  });

  it('accepts per policy; a mismatch is flagged or returned as the account says; after expiry is always a mismatch', () => {
    const accepted: Record<AmountPolicy, Variance[]> = {
      exact: ['exact'],
      at_least: ['exact', 'over'],
      at_most: ['exact', 'under'],
      any: ['exact', 'under', 'over'],
    };
    for (const [policy, variances] of Object.entries(accepted) as Array<[AmountPolicy, Variance[]]>) {
      for (const variance of ['exact', 'under', 'over', 'after_expiry'] as const) {
        const expected = variances.includes(variance);
        assert.equal(mismatchActionOf(policy, 'credit_and_flag', variance), expected ? 'none' : 'flagged', `${policy} ${variance}`);
        assert.equal(mismatchActionOf(policy, 'return', variance), expected ? 'none' : 'return', `${policy} ${variance}`);
      }
    }
  });

  it('closes the account on its first accepted payment, but `any` only on the exact amount, and never without an expected amount', () => {
    assert.equal(closesAccount('exact', 'exact', 100n), true);
    assert.equal(closesAccount('exact', 'under', 100n), false);
    assert.equal(closesAccount('at_least', 'over', 100n), true);
    assert.equal(closesAccount('at_least', 'under', 100n), false);
    assert.equal(closesAccount('at_most', 'under', 100n), true);
    assert.equal(closesAccount('at_most', 'over', 100n), false);
    assert.equal(closesAccount('any', 'over', 100n), false);
    assert.equal(closesAccount('any', 'exact', 100n), true);
    assert.equal(closesAccount('any', 'exact', null), false);
    for (const policy of ['exact', 'at_least', 'at_most', 'any'] as const) assert.equal(closesAccount(policy, 'after_expiry', 100n), false);
  });
});
