import assert from 'node:assert/strict';
import {
  sweepPayoutApproval,
  transferApproval,
  type TransferAndSweepApprovalPolicy,
} from '../../src/policies/payout-approval/transfer-and-sweep-approval';

describe('transfer and sweep approval policy', () => {
  const policy: TransferAndSweepApprovalPolicy = { transferAbove: 50_000_00n, sweeps: false, expiresAfterSeconds: 600 };

  it('lets every transfer and sweep run at once when the tenant has no policy', () => {
    assert.deepEqual(transferApproval(undefined, { amount: 10_000_000_00n }), { required: false });
    assert.deepEqual(sweepPayoutApproval(undefined), { required: false });
  });

  it('holds a transfer strictly above the amount: one of exactly the amount moves at once', () => {
    assert.deepEqual(transferApproval(policy, { amount: 50_000_00n }), { required: false });
    assert.deepEqual(transferApproval(policy, { amount: 50_000_01n }), { required: true, expiresAfterSeconds: 600 });
    assert.deepEqual(transferApproval({ ...policy, transferAbove: null }, { amount: 10_000_000_00n }), { required: false });
  });

  it("holds a sweep's payout, whatever its amount, only when the policy holds sweeps", () => {
    assert.deepEqual(sweepPayoutApproval(policy), { required: false });
    assert.deepEqual(sweepPayoutApproval({ ...policy, sweeps: true }), {
      required: true,
      reasons: ['balance_sweep'],
      expiresAfterSeconds: 600,
    });
  });
});
