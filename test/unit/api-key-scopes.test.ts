import assert from 'node:assert/strict';
import { createApiKeyUseNotes } from '../../src/auth/api-key-uses';
import { API_KEY_SCOPE_NAMES, scopesAllow } from '../../src/http/api-key-scopes';
import { requiredScope, type RouteDefinition } from '../../src/http/route';
import { createRoutes, type Services } from '../../src/main/container';
import { addressInRanges, canonicalAddressRange } from '../../src/net/address-ranges';
import { testConfig } from '../helpers/config';

/** Stands in for every service: building the routes only keeps references to them. */
const anything: unknown = new Proxy(() => anything, { get: () => anything, apply: () => anything });

describe('api key scopes', () => {
  it('has every API key route of the service need exactly one known scope, a write never read', () => {
    const routes: RouteDefinition[] = createRoutes(anything as Services, testConfig());
    const apiKeyRoutes = routes.filter((route) => route.auth === 'apiKey');
    assert.ok(apiKeyRoutes.length > 30);
    for (const route of apiKeyRoutes) {
      const scope = requiredScope(route);
      const name = `${route.method.toUpperCase()} ${route.path}`;
      assert.ok(scope, `${name} names no scope`);
      assert.ok(API_KEY_SCOPE_NAMES.includes(scope), `${name}: ${scope}`);
      if (route.method !== 'get' && scope === 'read')
        assert.equal(route.path, '/v1/transfers/lookup', `${name} is a write read-only keys may call`);
    }
  });

  it('takes a write without a scope as needing none it can name, and * as every scope', () => {
    assert.equal(requiredScope({ method: 'post' }), undefined);
    assert.equal(requiredScope({ method: 'get' }), 'read');
    assert.equal(requiredScope({ method: 'delete', scope: 'webhooks:write' }), 'webhooks:write');
    assert.ok(scopesAllow(['*'], 'payouts:write'));
    assert.ok(scopesAllow(['read', 'payouts:write'], 'payouts:write'));
    assert.ok(!scopesAllow(['read'], 'payouts:write'));
  });
});

describe('api key allowed sources', () => {
  it("writes addresses and ranges canonically, clearing a range's host bits", () => {
    assert.equal(canonicalAddressRange(' 203.0.113.7 '), '203.0.113.7');
    assert.equal(canonicalAddressRange('203.0.113.77/24'), '203.0.113.0/24');
    assert.equal(canonicalAddressRange('2001:DB8::1/32'), '2001:db8::/32');
    assert.equal(canonicalAddressRange('::ffff:10.1.2.3'), '10.1.2.3');
    assert.equal(canonicalAddressRange('::ffff:10.1.2.3/104'), '10.0.0.0/8');
    for (const bad of ['10.0.0.300', '10.0.0.0/33', 'example.com', '', '10.0.0.0/']) assert.equal(canonicalAddressRange(bad), null, bad);
  });

  it('matches a client address, IPv4-mapped or not, against them', () => {
    const ranges = ['10.0.0.0/8', '203.0.113.7', '2001:db8::/32'];
    assert.ok(addressInRanges('10.200.1.1', ranges));
    assert.ok(addressInRanges('::ffff:10.200.1.1', ranges));
    assert.ok(addressInRanges('203.0.113.7', ranges));
    assert.ok(addressInRanges('2001:db8:1::5', ranges));
    assert.ok(!addressInRanges('203.0.113.8', ranges));
    assert.ok(!addressInRanges('11.0.0.1', ranges));
    assert.ok(!addressInRanges('2001:db9::1', ranges));
    assert.ok(!addressInRanges('not an address', ranges));
  });
});

describe('api key last use', () => {
  it("writes a key's use at once, then at most once an interval, and again after a failed write", async () => {
    let clock = 1_000_000;
    const writes: Array<[string, number]> = [];
    let failNext = false;
    const errors: unknown[] = [];
    const notes = createApiKeyUseNotes({
      intervalMs: 60_000,
      now: () => clock,
      onError: (error) => errors.push(error),
      write: async (keyId, at) => {
        if (failNext) {
          failNext = false;
          throw new Error('database down');
        }
        writes.push([keyId, at.getTime()]);
      },
    });
    notes.note('a');
    notes.note('a');
    notes.note('b');
    clock += 59_999;
    notes.note('a');
    clock += 1;
    notes.note('a');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, [
      ['a', 1_000_000],
      ['b', 1_000_000],
      ['a', 1_060_000],
    ]);
    failNext = true;
    clock += 60_000;
    notes.note('b');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(errors.length, 1);
    clock += 1;
    notes.note('b');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes.at(-1), ['b', 1_120_001], 'the use after a failed write is written');
  });
});
