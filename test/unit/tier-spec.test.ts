import assert from 'node:assert/strict';
import { AppError } from '../../src/errors';
import { formatTierSpec, parseTierSpec } from '../../src/fees/tier-spec';

describe('fee tier notation (fees:set, fees:show)', () => {
  it('parses naira MIN-MAX:FEE tiers, the last open-ended, and prints them back', () => {
    const tiers = parseTierSpec('0-4999.99:10, 5000-50000:25,50000.01-:50');
    assert.deepEqual(tiers, [
      { minSend: 0n, maxSend: 499_999n, fee: 1_000n },
      { minSend: 500_000n, maxSend: 5_000_000n, fee: 2_500n },
      { minSend: 5_000_001n, maxSend: null, fee: 5_000n },
    ]);
    assert.equal(formatTierSpec(tiers), '0.00-4999.99:10.00,5000.00-50000.00:25.00,50000.01-:50.00');
    assert.deepEqual(parseTierSpec(formatTierSpec(tiers)), tiers);
  });

  it('refuses text that is not the notation, naming the tier', () => {
    const refuses = (spec: string, message: RegExp) =>
      assert.throws(
        () => parseTierSpec(spec),
        (error: unknown) => error instanceof AppError && error.kind === 'invalid' && message.test(error.message),
      );
    refuses('0-100', /tier 1 "0-100" is not MIN-MAX:FEE/);
    refuses('0-100:1,,101-:2', /tier 2 "" is not MIN-MAX:FEE/);
    refuses('0-1.234:1,1.24-:2', /maximum "1.234" is not a naira amount/);
    refuses('0-100:ten,100.01-:20', /fee "ten" is not a naira amount/);
    refuses('-5-:1', /is not MIN-MAX:FEE/);
  });
});
