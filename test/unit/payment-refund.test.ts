import assert from 'node:assert/strict';
import { refundableOf, refundDecision, type RefundFacts } from '../../src/policies/payment-refund/payment-refund';

describe('payment refund policy', () => {
  const confirmed: RefundFacts = {
    status: 'confirmed',
    takenBack: false,
    credited: 10_000_00n,
    held: 0n,
    returnedHeld: 0n,
    refunded: 0n,
  };

  it('refunds what is asked up to what the payment credited less its refunds that have not failed', () => {
    assert.deepEqual(refundDecision(confirmed, 4_000_00n), { action: 'refund', amount: 4_000_00n });
    assert.deepEqual(refundDecision({ ...confirmed, refunded: 4_000_00n }, 6_000_00n), { action: 'refund', amount: 6_000_00n });
    const over = refundDecision({ ...confirmed, refunded: 4_000_00n }, 6_000_01n);
    assert.equal(over.action === 'refuse' && over.code, 'refund_exceeds_payment');
    assert.match(over.action === 'refuse' ? over.message : '', /6000\.01 is more than the payment has left to refund: 6000\.00/);
  });

  it('refunds the whole remainder when no amount is asked, and refuses once nothing is left', () => {
    assert.deepEqual(refundDecision({ ...confirmed, refunded: 2_500_00n }, undefined), { action: 'refund', amount: 7_500_00n });
    const none = refundDecision({ ...confirmed, refunded: 10_000_00n }, undefined);
    assert.equal(none.action === 'refuse' && none.code, 'nothing_to_refund');
  });

  it('leaves money held of the credit, and what the held-money queue returned of it, to that queue', () => {
    assert.equal(refundableOf({ ...confirmed, held: 3_000_00n }), 7_000_00n);
    assert.equal(refundableOf({ ...confirmed, held: 1_000_00n, returnedHeld: 2_000_00n, refunded: 5_000_00n }), 2_000_00n);
    assert.equal(refundableOf({ ...confirmed, held: 10_000_00n }), 0n);
    const held = refundDecision({ ...confirmed, held: 3_000_00n }, 7_000_01n);
    assert.equal(held.action === 'refuse' && held.code, 'refund_exceeds_payment');
  });

  it('refuses a provisional payment and a reversed or taken-back one, whatever the amount', () => {
    for (const [facts, code] of [
      [{ ...confirmed, status: 'provisional' }, 'payment_not_confirmed'],
      [{ ...confirmed, status: 'reversed' }, 'payment_reversed'],
      [{ ...confirmed, takenBack: true }, 'payment_reversed'],
    ] as const) {
      const decision = refundDecision(facts, 1_00n);
      assert.equal(decision.action === 'refuse' && decision.code, code);
    }
  });
});
