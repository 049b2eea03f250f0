import assert from 'node:assert/strict';
import { sweepAmount } from '../../src/balance-sweeps/balance-sweep-amount';

describe('balance sweep amount', () => {
  const unlimited = { tier: 3, dailyLimit: null, usedToday: 0n };
  const tier1 = (usedToday: bigint) => ({ tier: 1, dailyLimit: 5_000_000n, usedToday });

  it('settles what the run found when no cap applies', () => {
    assert.deepEqual(sweepAmount(1_000_000n, 500_000_000n, unlimited), { amount: 1_000_000n, cap: null });
    assert.deepEqual(sweepAmount(1_000_000n, 500_000_000n, tier1(4_000_000n)), { amount: 1_000_000n, cap: null });
  });

  it('caps at MAX_AMOUNT', () => {
    assert.deepEqual(sweepAmount(700_000_000n, 500_000_000n, unlimited), {
      amount: 500_000_000n,
      cap: 'capped at 5000000.00, the most one settlement may pay; the rest goes in a later period',
    });
  });

  it("caps at what the daily payout limit leaves today, below MAX_AMOUNT's cap", () => {
    assert.deepEqual(sweepAmount(700_000_000n, 500_000_000n, tier1(2_000_000n)), {
      amount: 3_000_000n,
      cap: 'capped at the 30000.00 left today (Africa/Lagos) of the tier 1 daily payout limit of 50000.00; the rest goes in a later period',
    });
  });

  it('settles nothing when the limit has nothing left (used up, or more than used by payouts outside a sweep)', () => {
    for (const used of [5_000_000n, 6_000_000n])
      assert.deepEqual(sweepAmount(100n, 500_000_000n, tier1(used)), {
        amount: 0n,
        cap: 'the tier 1 daily payout limit of 50000.00 has nothing left today (Africa/Lagos)',
      });
  });
});
