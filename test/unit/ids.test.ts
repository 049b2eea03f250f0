import assert from 'node:assert/strict';
import { isUuid, uuidv7 } from '../../src/ids';

describe('uuidv7', () => {
  it('carries its creation time in the first 48 bits, version 7 and the RFC variant, and never repeats across many pool refills', () => {
    const before = Date.now();
    const ids = Array.from({ length: 2_000 }, () => uuidv7());
    const after = Date.now();
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) {
      assert.ok(isUuid(id), id);
      const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      assert.ok(ms >= before && ms <= after, `${id}: ${ms} outside ${before}..${after}`);
      assert.equal(id[14], '7');
      assert.match(id[19]!, /[89ab]/);
    }
    const later = uuidv7();
    assert.ok(
      ids.every((id) => id.slice(0, 13) <= later.slice(0, 13)),
      'time-ordered by their prefix',
    );
  });
});
