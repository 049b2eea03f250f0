import assert from 'node:assert/strict';
import { parseDuration, parseDurationList } from '../../src/duration';

describe('durations', () => {
  it('reads each unit', () => {
    assert.equal(parseDuration('500ms'), 500);
    assert.equal(parseDuration('20s'), 20_000);
    assert.equal(parseDuration('2m'), 120_000);
    assert.equal(parseDuration('1h'), 3_600_000);
    assert.equal(parseDuration('1d'), 86_400_000);
  });

  it('refuses a number without a unit and unknown units', () => {
    for (const bad of ['30', 'm', '2 weeks', '2w', '', '-1s']) assert.equal(parseDuration(bad), null, bad);
  });

  it('reads lists and refuses a list with a bad item', () => {
    assert.deepEqual(parseDurationList('2m,5m'), [120_000, 300_000]);
    assert.equal(parseDurationList('2m,,x'), null);
    assert.equal(parseDurationList(' , '), null);
  });
});
