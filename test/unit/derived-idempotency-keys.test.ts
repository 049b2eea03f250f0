import assert from 'node:assert/strict';
import { derivedIdempotencyKey } from '../../src/idempotency/derived-keys';
import { validIdempotencyKey } from '../../src/idempotency/request-hash';

describe('derived Idempotency-Keys', () => {
  it('are refused as a client key, so no request can claim one first', () => {
    const key = derivedIdempotencyKey('balance-sweep', 'va_abc123_000000000001', '2026-12-01');
    assert.equal(key, 'service balance-sweep:va_abc123_000000000001:2026-12-01');
    assert.throws(() => validIdempotencyKey(key), /Idempotency-Key must be 1 to 255 visible ASCII characters/);
    // The same text without the reserved space is an ordinary client key.
    assert.equal(validIdempotencyKey('balance-sweep:va_abc123_000000000001:2026-12-01'), 'balance-sweep:va_abc123_000000000001:2026-12-01');
  });
});
