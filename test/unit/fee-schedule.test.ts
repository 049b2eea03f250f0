import assert from 'node:assert/strict';
import fc from 'fast-check';
import { feeFor, quoteFor, scheduleProblems, type FeeTier } from '../../src/fees/fee-schedule';
import { formatKobo, parseNairaInput } from '../../src/money';
import { providerFeeKobo } from '../../src/sandbox/fees';

/** The schedule migrations/20261122000500_fee_schedule.ts seeds (SPEC.md's tiers), in kobo. */
const SEEDED: FeeTier[] = [
  { minSend: 0n, maxSend: 499_999n, fee: 1_000n },
  { minSend: 500_000n, maxSend: 5_000_000n, fee: 2_500n },
  { minSend: 5_000_001n, maxSend: null, fee: 5_000n },
];

const kobo = (naira: string): bigint => parseNairaInput(naira)!;

function quoteText(tiers: FeeTier[], receive: string) {
  const quote = quoteFor(tiers, kobo(receive));
  assert.ok(quote, `no quote for ${receive}`);
  return { receive_amount: formatKobo(quote.receive), provider_fee: formatKobo(quote.fee), send_amount: formatKobo(quote.send) };
}

/** Brute force: every send from `receive` (fees are never negative) up to `below`, none of which may land `receive`. */
function noSmallerSendLands(tiers: FeeTier[], receive: bigint, below: bigint): boolean {
  for (let send = receive; send < below; send += 1n) {
    if (send - (feeFor(tiers, send) ?? -1n) === receive) return false;
  }
  return true;
}

/** Valid schedules: contiguous from 0, open-ended, fees never falling; amounts up to 1,000,000 naira. */
const scheduleArb: fc.Arbitrary<FeeTier[]> = fc
  .tuple(
    fc.uniqueArray(fc.bigInt({ min: 1n, max: 100_000_000n }), { maxLength: 5 }),
    fc.array(fc.bigInt({ min: 0n, max: 20_000n }), { minLength: 6, maxLength: 6 }),
  )
  .map(([starts, fees]) => {
    const mins = [0n, ...starts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))];
    const sortedFees = fees.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return mins.map((minSend, index) => ({
      minSend,
      maxSend: index + 1 < mins.length ? mins[index + 1]! - 1n : null,
      fee: sortedFees[index]!,
    }));
  });

describe('fee schedule', () => {
  it('charges the seeded tiers on the amount sent, 5,000 and 50,000 both in the middle tier (as the sandbox does)', () => {
    assert.equal(feeFor(SEEDED, kobo('4999.99')), 1_000n);
    assert.equal(feeFor(SEEDED, kobo('5000.00')), 2_500n);
    assert.equal(feeFor(SEEDED, kobo('50000.00')), 2_500n);
    assert.equal(feeFor(SEEDED, kobo('50000.01')), 5_000n);
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: 1_000_000_000n }), (send) => feeFor(SEEDED, send) === providerFeeKobo(send)));
  });

  it('quotes the boundaries named in the issue', () => {
    // 4,990 + 10 = 5,000 is already the middle tier, so the payer sends 4,990 + 25.
    assert.deepEqual(quoteText(SEEDED, '4990.00'), { receive_amount: '4990.00', provider_fee: '25.00', send_amount: '5015.00' });
    // Sending 4,985 (fee 10) and 5,000 (fee 25) both land 4,975; the smaller send wins.
    assert.deepEqual(quoteText(SEEDED, '4975.00'), { receive_amount: '4975.00', provider_fee: '10.00', send_amount: '4985.00' });
    // 50,000 is still the middle tier: 50,000 - 25 = 49,975.
    assert.deepEqual(quoteText(SEEDED, '49975.00'), { receive_amount: '49975.00', provider_fee: '25.00', send_amount: '50000.00' });
    // 49,976 + 25 = 50,001 is the top tier, so the payer sends 49,976 + 50.
    assert.deepEqual(quoteText(SEEDED, '49976.00'), { receive_amount: '49976.00', provider_fee: '50.00', send_amount: '50026.00' });
    assert.deepEqual(quoteText(SEEDED, '4989.99'), { receive_amount: '4989.99', provider_fee: '10.00', send_amount: '4999.99' });
    assert.deepEqual(quoteText(SEEDED, '0.01'), { receive_amount: '0.01', provider_fee: '10.00', send_amount: '10.01' });
  });

  it('property: send - fee(send) = receive, and no smaller send lands it (seeded tiers)', () => {
    const nearBoundaries = fc.oneof(
      fc.bigInt({ min: 1n, max: 10_000_000_000n }),
      fc.bigInt({ min: 490_000n, max: 510_000n }),
      fc.bigInt({ min: 4_990_000n, max: 5_010_000n }),
    );
    fc.assert(
      fc.property(nearBoundaries, (receive) => {
        const quote = quoteFor(SEEDED, receive);
        assert.ok(quote);
        assert.equal(quote.send - feeFor(SEEDED, quote.send)!, receive);
        assert.equal(quote.send, receive + quote.fee);
        assert.ok(noSmallerSendLands(SEEDED, receive, quote.send));
      }),
      { numRuns: 500 },
    );
  });

  it('property: every valid schedule quotes every amount, minimally', () => {
    fc.assert(
      fc.property(scheduleArb, fc.bigInt({ min: 1n, max: 120_000_000n }), (tiers, receive) => {
        assert.deepEqual(scheduleProblems(tiers), []);
        const quote = quoteFor(tiers, receive);
        assert.ok(quote);
        assert.equal(quote.send - feeFor(tiers, quote.send)!, receive);
        assert.ok(noSmallerSendLands(tiers, receive, quote.send));
      }),
      { numRuns: 300 },
    );
  });

  it('finds no quote only when no send lands the amount (a schedule whose fee falls)', () => {
    const falling: FeeTier[] = [
      { minSend: 0n, maxSend: 999n, fee: 500n },
      { minSend: 1_000n, maxSend: null, fee: 100n },
    ];
    // Sends up to 999 land at most 499; from 1,000 they land 900 and up: 500..899 cannot be reached.
    assert.equal(quoteFor(falling, 700n), null);
    assert.ok(noSmallerSendLands(falling, 700n, 700n + 501n));
    assert.deepEqual(quoteFor(falling, 499n), { receive: 499n, fee: 500n, send: 999n });
    assert.deepEqual(quoteFor(falling, 900n), { receive: 900n, fee: 100n, send: 1_000n });
  });

  it('accepts the seeded schedule and names every problem of a bad one', () => {
    assert.deepEqual(scheduleProblems(SEEDED), []);
    assert.deepEqual(scheduleProblems([]), ['the schedule needs at least one tier']);
    assert.deepEqual(scheduleProblems([{ minSend: 1n, maxSend: null, fee: 0n }]), ['the first tier must start at 0']);
    assert.deepEqual(scheduleProblems([{ minSend: 0n, maxSend: 100n, fee: 0n }]), ['tier 1: the last tier must be open-ended']);
    assert.deepEqual(
      scheduleProblems([
        { minSend: 0n, maxSend: 100n, fee: 10n },
        { minSend: 102n, maxSend: null, fee: 20n },
      ]),
      ['tier 2 must start one kobo after tier 1 ends'],
    );
    assert.deepEqual(
      scheduleProblems([
        { minSend: 0n, maxSend: 100n, fee: 10n },
        { minSend: 100n, maxSend: null, fee: 20n },
      ]),
      ['tier 2 must start one kobo after tier 1 ends'],
    );
    assert.deepEqual(
      scheduleProblems([
        { minSend: 0n, maxSend: null, fee: 10n },
        { minSend: 101n, maxSend: null, fee: 20n },
      ]),
      ['tier 1: only the last tier may be open-ended'],
    );
    assert.deepEqual(
      scheduleProblems([
        { minSend: 0n, maxSend: 100n, fee: 10n },
        { minSend: 101n, maxSend: null, fee: 5n },
      ]),
      ['tier 2: the fee cannot be lower than the fee of a smaller send'],
    );
    assert.deepEqual(scheduleProblems([{ minSend: 0n, maxSend: null, fee: -1n }]), ['tier 1: the fee cannot be negative']);
  });
});
