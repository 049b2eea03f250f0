import assert from 'node:assert/strict';
import { isDuplicateReference, isNotCreatedRefusal, ProviderRejectedError } from '../../src/provider/errors';
import { parseRetryAfter } from '../../src/provider/spec-provider/provider-client';
import { MAX_PROVIDER_BACKOFF_MS, MAX_RETRY_AFTER_MS, pace } from '../../workflows/pacing';

describe('provider answers that decide a settlement', () => {
  it('recognises a duplicate reference by HTTP 409 or by a description saying it exists', () => {
    const duplicate = (status: number, description: string) => isDuplicateReference(new ProviderRejectedError(status, 'x', description));
    assert.equal(duplicate(409, 'conflict'), true);
    for (const text of [
      'transaction reference already exists',
      'Duplicate transaction',
      'merchantTxRef already used',
      'reference exists already',
      'Transfer already submitted',
    ]) {
      assert.equal(duplicate(400, text), true, text);
    }
    for (const text of ['invalid account number', 'system malfunction', 'insufficient balance', 'request processing in progress'])
      assert.equal(duplicate(400, text), false, text);
  });

  it('takes only the refusals the provider documents as "not created" for one; every other answer may have created the transfer', () => {
    const notCreated = (status: number, code: string, description = 'refused') =>
      isNotCreatedRefusal(new ProviderRejectedError(status, code, description));
    assert.equal(notCreated(400, '01', 'invalid bank code'), true);
    assert.equal(notCreated(400, '400', 'amount: must be positive'), true);
    assert.equal(notCreated(400, '96', 'system malfunction'), false, 'an unexplained 400');
    assert.equal(notCreated(404, '01'), false, 'the code alone decides nothing');
    assert.equal(notCreated(200, '09', 'request processing in progress'), false, 'a pending code');
    assert.equal(notCreated(400, '26', 'transaction reference already exists'), false, 'a duplicate says it exists');
    assert.equal(notCreated(409, '409', 'duplicate merchantTxRef'), false);
    for (const status of [401, 403, 422]) assert.equal(notCreated(status, 'x'), false, String(status));
  });

  it('reads Retry-After as seconds or an HTTP date, capped at 10 minutes, and ignores nonsense', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    assert.equal(parseRetryAfter('7', now), 7_000);
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter('Mon, 23 Nov 2026 10:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now), 0, 'a date in the past: ask now');
    assert.equal(parseRetryAfter('86400', now), 10 * 60_000);
    for (const junk of [null, '', 'soon', '-5', '1.5']) assert.equal(parseRetryAfter(junk, now), null, String(junk));
  });

  it('paces from the interval ×1.5 to the cap, never sooner than Retry-After', () => {
    const waits: number[] = [];
    let delay = 1_000;
    for (let i = 0; i < 14; i += 1) {
      const next = pace(delay, MAX_PROVIDER_BACKOFF_MS);
      waits.push(next.waitMs);
      delay = next.nextDelayMs;
    }
    assert.deepEqual(waits.slice(0, 8), [1_000, 1_500, 2_250, 3_375, 5_063, 7_595, 11_393, 17_090]);
    assert.equal(waits.at(-1), MAX_PROVIDER_BACKOFF_MS);
    let elapsed = 0;
    const callsInFirstMinute = waits.filter((wait) => (elapsed += wait) < 60_000).length + 1;
    assert.ok(callsInFirstMinute <= 20, `${callsInFirstMinute} calls in the first minute`);
    assert.deepEqual(pace(1_000, MAX_PROVIDER_BACKOFF_MS, 20_000), { waitMs: 20_000, nextDelayMs: 1_500 });
    assert.equal(pace(1_000, MAX_PROVIDER_BACKOFF_MS, 3_600_000).waitMs, MAX_RETRY_AFTER_MS);
    assert.deepEqual(
      pace(120_000, MAX_PROVIDER_BACKOFF_MS),
      { waitMs: 120_000, nextDelayMs: 120_000 },
      'an interval above the cap is kept',
    );
  });
});
