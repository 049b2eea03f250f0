import assert from 'node:assert/strict';
import Big from 'big.js';
import fc from 'fast-check';
import { formatKobo, koboFromProviderNumber, koboToProviderNumber, parseNairaInput } from '../../src/money';

describe('money', () => {
  it('parses tenant decimal strings to kobo', () => {
    assert.equal(parseNairaInput('1500'), 150000n);
    assert.equal(parseNairaInput('1500.5'), 150050n);
    assert.equal(parseNairaInput('1500.50'), 150050n);
    assert.equal(parseNairaInput('0.01'), 1n);
    assert.equal(parseNairaInput('0'), 0n);
    assert.equal(parseNairaInput('99999999999999999.99'), 9999999999999999999n);
  });

  it('refuses anything that is not a plain decimal string', () => {
    for (const bad of ['', ' 1', '1.', '.5', '1.234', '-1', '+1', '1e3', '0x10', '1,000', 'abc', '１２']) {
      assert.equal(parseNairaInput(bad), null, bad);
    }
    for (const bad of [100, null, undefined, {}, ['1']]) assert.equal(parseNairaInput(bad), null);
  });

  it('converts provider JSON numbers from their decimal text, never by float multiplication', () => {
    assert.equal(koboFromProviderNumber(1234.56), 123456n);
    assert.equal(koboFromProviderNumber(5025), 502500n);
    assert.equal(koboFromProviderNumber(0.29), 29n);
    assert.equal(koboFromProviderNumber(1004.99), 100499n);
    assert.equal(koboFromProviderNumber(0.1 + 0.2), null);
    assert.equal(koboFromProviderNumber(4.35), 435n);
    assert.equal(koboFromProviderNumber(10.005), null);
    assert.equal(koboFromProviderNumber(Number.NaN), null);
    assert.equal(koboFromProviderNumber(Number.POSITIVE_INFINITY), null);
  });

  it('reads provider numbers exactly as their decimal text says, whatever the form of the text', () => {
    // The decimal text through big.js, as every provider number was read before the fast path.
    const byDecimalText = (value: number): bigint | null => {
      const kobo = new Big(String(value)).times(100);
      return kobo.eq(kobo.round(0, Big.roundDown)) ? BigInt(kobo.toFixed(0)) : null;
    };
    const amounts = fc.oneof(
      fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 }).map((kobo) => kobo / 100),
      fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map((kobo) => kobo / 100),
      fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map((tenthKobo) => tenthKobo / 1000),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(
        0,
        -0,
        1e21,
        1e-7,
        123456789012345680000,
        0.1 + 0.2,
        1.005,
        -0.5,
        -0.005,
        2 ** 50 / 100,
        2 ** 50 / 100 + 0.01,
        Number.MAX_SAFE_INTEGER,
      ),
    );
    fc.assert(
      fc.property(amounts, (value) => koboFromProviderNumber(value) === byDecimalText(value)),
      { numRuns: 5_000 },
    );
    assert.equal(koboFromProviderNumber(-25.5), -2550n);
    assert.equal(koboFromProviderNumber(1e21), 100000000000000000000000n);
  });

  it('formats kobo with exactly two decimals', () => {
    assert.equal(formatKobo(0n), '0.00');
    assert.equal(formatKobo(5n), '0.05');
    assert.equal(formatKobo(150050n), '1500.50');
    assert.equal(formatKobo(-2500n), '-25.00');
    assert.equal(koboToProviderNumber(123456n), 1234.56);
  });
});
