import assert from 'node:assert/strict';
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

  it('formats kobo with exactly two decimals', () => {
    assert.equal(formatKobo(0n), '0.00');
    assert.equal(formatKobo(5n), '0.05');
    assert.equal(formatKobo(150050n), '1500.50');
    assert.equal(formatKobo(-2500n), '-25.00');
    assert.equal(koboToProviderNumber(123456n), 1234.56);
  });
});
