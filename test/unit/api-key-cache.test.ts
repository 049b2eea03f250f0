import assert from 'node:assert/strict';
import { createApiKeyCache } from '../../src/auth/api-key-cache';

const TENANT = { id: 't1', name: 'Tenant' };

/** A cache on a hand-moved clock, and a load that counts its calls. */
function setup(options: { ttlMs?: number; maxEntries?: number } = {}) {
  let clock = 0;
  const cache = createApiKeyCache<typeof TENANT>({
    ttlMs: options.ttlMs ?? 60_000,
    maxEntries: options.maxEntries ?? 100,
    now: () => clock,
  });
  const loads: string[] = [];
  const lookup = (key: string, tenant: typeof TENANT | null = TENANT) =>
    cache.keyFor(key, async () => {
      loads.push(key);
      return tenant;
    });
  return { cache, loads, lookup, advance: (ms: number) => (clock += ms) };
}

describe('API key cache', () => {
  it('answers from memory only while live, and forgets everything on a change or when it stops hearing changes', async () => {
    const { cache, loads, lookup } = setup();
    assert.deepEqual(await lookup('a'), TENANT);
    await lookup('a');
    assert.equal(loads.length, 2, 'not live yet: every lookup goes to the database');
    cache.setLive(true);
    await lookup('a');
    assert.deepEqual(await lookup('a'), TENANT);
    assert.equal(loads.length, 3, 'live: the second lookup is answered from memory');
    cache.forget();
    await lookup('a');
    assert.equal(loads.length, 4, 'a change notification forgets it');
    cache.setLive(false);
    await lookup('a');
    await lookup('a');
    assert.equal(loads.length, 6, 'listener lost: back to the database every time');
  });

  it('keeps no unknown key, and no answer read before a change that landed while it was read', async () => {
    const { cache, loads, lookup } = setup();
    cache.setLive(true);
    assert.equal(await lookup('unknown', null), null);
    assert.equal(await lookup('unknown', null), null);
    assert.equal(loads.length, 2);
    const racing = cache.keyFor('a', async () => {
      cache.forget();
      return TENANT;
    });
    assert.deepEqual(await racing, TENANT);
    await lookup('a');
    assert.deepEqual(loads, ['unknown', 'unknown', 'a'], 'the answer read across the change was not kept');
  });

  it('lets an entry live at most ttl, holds at most maxEntries (oldest out first), and is off at ttl 0', async () => {
    const { cache, loads, lookup, advance } = setup({ ttlMs: 1_000, maxEntries: 2 });
    cache.setLive(true);
    await lookup('a');
    advance(999);
    await lookup('a');
    advance(1);
    await lookup('a');
    assert.deepEqual(loads, ['a', 'a']);
    await lookup('b');
    await lookup('c');
    await lookup('b');
    await lookup('c');
    await lookup('a');
    assert.deepEqual(loads, ['a', 'a', 'b', 'c', 'a'], 'adding c pushed out a, the oldest');
    const off = setup({ ttlMs: 0 });
    off.cache.setLive(true);
    await off.lookup('a');
    await off.lookup('a');
    assert.equal(off.loads.length, 2);
  });
});
