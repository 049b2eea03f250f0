import assert from 'node:assert/strict';
import { payoutApproval, type ApprovalPolicy } from '../../src/policies/payout-approval/payout-approval';

describe('payout approval policy', () => {
  const policy: ApprovalPolicy = { payoutAtOrAbove: 100_000_00n, newDestination: false, expiresAfterSeconds: 3600 };

  it('lets every payout run at once when the tenant has no policy', () => {
    assert.deepEqual(payoutApproval(undefined, { amount: 10_000_000_00n, firstToDestination: true }), { required: false });
  });

  it('holds a payout at or above the amount, not one below it', () => {
    assert.deepEqual(payoutApproval(policy, { amount: 99_999_99n, firstToDestination: true }), { required: false });
    assert.deepEqual(payoutApproval(policy, { amount: 100_000_00n, firstToDestination: false }), {
      required: true,
      reasons: ['amount'],
      expiresAfterSeconds: 3600,
    });
  });

  it('holds the first payout to a destination when the policy asks, naming every reason that applies', () => {
    const firstTo = { ...policy, newDestination: true };
    assert.deepEqual(payoutApproval(firstTo, { amount: 1_00n, firstToDestination: false }), { required: false });
    assert.deepEqual(payoutApproval(firstTo, { amount: 1_00n, firstToDestination: true }), {
      required: true,
      reasons: ['new_destination'],
      expiresAfterSeconds: 3600,
    });
    assert.deepEqual(payoutApproval(firstTo, { amount: 200_000_00n, firstToDestination: true }), {
      required: true,
      reasons: ['amount', 'new_destination'],
      expiresAfterSeconds: 3600,
    });
  });
});
