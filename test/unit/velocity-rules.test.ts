import assert from 'node:assert/strict';
import { creditVelocity, exceeds, payoutVelocity, type VelocityRule, type WindowSoFar } from '../../src/policies/velocity/velocity-rules';
import { velocityRuleBodySchema } from '../../src/velocity-rules/velocity-rules.schemas';

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

describe('velocity rules over credits: the policy', () => {
  const creditRule = (overrides: Partial<VelocityRule> = {}): VelocityRule =>
    rule({ subject: 'credits', action: 'hold', message: 'one payment an hour', ...overrides });

  it('lets a credit land free while the window has room, this credit included', () => {
    assert.deepEqual(creditVelocity([{ rule: creditRule({ threshold: 2n }), soFar: soFar(1n) }], 100n), { action: 'allow' });
    assert.deepEqual(creditVelocity([], 100n), { action: 'allow' });
  });

  it("holds a credit past a count rule with the rule's message; never refuses it", () => {
    const holding = creditRule();
    assert.deepEqual(creditVelocity([{ rule: holding, soFar: soFar(1n) }], 100n), {
      action: 'hold',
      rule: holding,
      message: 'one payment an hour',
    });
  });

  it('an amount rule adds this credit to what the window received', () => {
    const amountRule = creditRule({ measure: 'amount', threshold: 7_500_00n, message: 'over 7,500 a day' });
    assert.equal(creditVelocity([{ rule: amountRule, soFar: soFar(1n, 5_000_00n) }], 2_500_00n).action, 'allow');
    assert.equal(creditVelocity([{ rule: amountRule, soFar: soFar(1n, 5_000_00n) }], 2_500_01n).action, 'hold');
  });

  it('the first rule past its threshold, in the order given, names why', () => {
    const roomy = creditRule({ id: 'roomy', threshold: 5n, message: 'roomy' });
    const first = creditRule({ id: 'first', message: 'first' });
    const second = creditRule({ id: 'second', measure: 'amount', threshold: 50n, message: 'second' });
    const verdict = creditVelocity(
      [
        { rule: roomy, soFar: soFar(1n) },
        { rule: first, soFar: soFar(1n) },
        { rule: second, soFar: soFar(0n) },
      ],
      100n,
    );
    assert.deepEqual(verdict, { action: 'hold', rule: first, message: 'first' });
  });

  it('a payout judged under the same rules is never held: a holding rule neither refuses nor reviews a payout', () => {
    assert.deepEqual(payoutVelocity([{ rule: creditRule(), soFar: soFar(5n) }], 100n), { action: 'allow' });
  });

  it('a credit rule holds, over an account or a customer, with a message; anything else is refused by the schema', () => {
    const valid = { subject: 'credits', measure: 'count', maxCount: 1, windowSeconds: 60, scope: 'account', action: 'hold', message: 'x' };
    assert.equal(velocityRuleBodySchema.safeParse(valid).success, true);
    assert.equal(velocityRuleBodySchema.safeParse({ ...valid, scope: 'customer' }).success, true);
    const issues = (body: Record<string, unknown>) =>
      velocityRuleBodySchema.safeParse(body).error?.issues.map((issue) => issue.message) ?? [];
    assert.deepEqual(issues({ ...valid, scope: 'destination' }), ['a credit rule\'s scope must be "account" or "customer"']);
    assert.match(issues({ ...valid, action: 'refuse' })[0] ?? '', /^a credit rule's action must be "hold"/);
    assert.deepEqual(issues({ ...valid, message: undefined }), ['a holding rule names the message that says why the credit is held']);
    assert.deepEqual(issues({ ...valid, subject: 'payouts' }), ['a payout rule\'s action must be "refuse" or "review"']);
  });
});
