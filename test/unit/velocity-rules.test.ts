import assert from 'node:assert/strict';
import { exceeds, payoutVelocity, type VelocityRule, type WindowSoFar } from '../../src/policies/velocity/velocity-rules';

const rule = (overrides: Partial<VelocityRule> = {}): VelocityRule => ({
  id: 'r1',
  subject: 'payouts',
  measure: 'count',
  scope: 'account',
  windowSeconds: 3600,
  threshold: 1n,
  action: 'refuse',
  message: 'one payout an hour',
  ...overrides,
});

const soFar = (count: bigint, amount: bigint = 0n): WindowSoFar => ({ count, amount });

describe('velocity rules: the policy', () => {
  it('a count rule lets the window reach its threshold, this payout included, and no further', () => {
    assert.equal(exceeds(rule({ threshold: 2n }), soFar(0n), 100n), false);
    assert.equal(exceeds(rule({ threshold: 2n }), soFar(1n), 100n), false);
    assert.equal(exceeds(rule({ threshold: 2n }), soFar(2n), 100n), true);
  });

  it('an amount rule adds this payout to what the window paid', () => {
    const amountRule = rule({ measure: 'amount', threshold: 10_000_00n });
    assert.equal(exceeds(amountRule, soFar(3n, 6_000_00n), 4_000_00n), false);
    assert.equal(exceeds(amountRule, soFar(3n, 6_000_00n), 4_000_01n), true);
    assert.equal(exceeds(amountRule, soFar(0n), 10_000_01n), true);
  });

  it('allows a payout no rule judges past its threshold, and one under no rules', () => {
    assert.deepEqual(payoutVelocity([{ rule: rule(), soFar: soFar(0n) }], 100n), { action: 'allow' });
    assert.deepEqual(payoutVelocity([], 100n), { action: 'allow' });
  });

  it("refuses with the rule's message", () => {
    const refusing = rule({ message: 'slow down' });
    assert.deepEqual(payoutVelocity([{ rule: refusing, soFar: soFar(1n) }], 100n), {
      action: 'refuse',
      rule: refusing,
      message: 'slow down',
    });
  });

  it('sends to review, and a refusal wins over a review whatever their order', () => {
    const reviewing = rule({ id: 'review', action: 'review', message: null });
    const refusing = rule({ id: 'refuse', measure: 'amount', threshold: 50n, message: 'too much' });
    assert.deepEqual(payoutVelocity([{ rule: reviewing, soFar: soFar(1n) }], 100n), { action: 'review', rule: reviewing });
    const both = payoutVelocity(
      [
        { rule: reviewing, soFar: soFar(1n) },
        { rule: refusing, soFar: soFar(0n) },
      ],
      100n,
    );
    assert.equal(both.action, 'refuse');
    assert.equal(both.action === 'refuse' && both.rule.id, 'refuse');
  });

  it('a rule whose window has room does not act, beside one that does', () => {
    const roomy = rule({ id: 'roomy', threshold: 5n });
    const reviewing = rule({ id: 'full', action: 'review', message: null });
    assert.deepEqual(
      payoutVelocity(
        [
          { rule: roomy, soFar: soFar(1n) },
          { rule: reviewing, soFar: soFar(1n) },
        ],
        100n,
      ),
      { action: 'review', rule: reviewing },
    );
  });
});
