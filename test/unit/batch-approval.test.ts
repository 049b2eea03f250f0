import assert from 'node:assert/strict';
import { batchApproval, type BatchApprovalPolicy } from '../../src/policies/batch-approval/batch-approval';

describe('batch approval policy', () => {
  const policy: BatchApprovalPolicy = { batchTotalAtOrAbove: 1_000_000_00n, batchItemsAtOrAbove: 100, expiresAfterSeconds: 3600 };

  it('lets every batch run at once when the tenant has no policy', () => {
    assert.deepEqual(batchApproval(undefined, { total: 10_000_000_00n, items: 5000 }), { required: false });
  });

  it('lets a batch run at once when the policy names no batch threshold', () => {
    const payoutsOnly = { batchTotalAtOrAbove: null, batchItemsAtOrAbove: null, expiresAfterSeconds: 3600 };
    assert.deepEqual(batchApproval(payoutsOnly, { total: 10_000_000_00n, items: 5000 }), { required: false });
  });

  it('holds a batch at or above the total, not one below it', () => {
    assert.deepEqual(batchApproval(policy, { total: 999_999_99n, items: 1 }), { required: false });
    assert.deepEqual(batchApproval(policy, { total: 1_000_000_00n, items: 1 }), {
      required: true,
      reasons: ['total'],
      expiresAfterSeconds: 3600,
    });
  });

  it('holds a batch of at least the item count, naming every reason that applies', () => {
    assert.deepEqual(batchApproval(policy, { total: 1_00n, items: 99 }), { required: false });
    assert.deepEqual(batchApproval(policy, { total: 1_00n, items: 100 }), {
      required: true,
      reasons: ['item_count'],
      expiresAfterSeconds: 3600,
    });
    assert.deepEqual(batchApproval(policy, { total: 2_000_000_00n, items: 100 }), {
      required: true,
      reasons: ['total', 'item_count'],
      expiresAfterSeconds: 3600,
    });
  });
});
