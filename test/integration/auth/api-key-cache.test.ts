import assert from 'node:assert/strict';
import { API_KEYS_CHANGED_CHANNEL, createApiKeyCache } from '../../../src/auth/api-key-cache';
import { createKnex, type Db } from '../../../src/db';
import { createLogger } from '../../../src/logger';
import { listenForNotifications, type NotificationListener } from '../../../src/notification-listener';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

const TENANT = { id: 't1', name: 'Tenant' };
const LISTENER_APP = 'api-key-listener-test';

describe('API key cache with change notifications (real Postgres)', () => {
  let stack: Stack;
  let listenerDb: Db;
  let listener: NotificationListener;
  const liveStates: boolean[] = [];
  const TTL_MS = 60_000;
  const cache = createApiKeyCache<typeof TENANT>({ ttlMs: TTL_MS, maxEntries: 100 });
  let loads = 0;
  let loadedAt = 0;
  const lookup = () =>
    cache.keyFor('key', async () => {
      loads += 1;
      loadedAt = Date.now();
      return TENANT;
    });
  /** Looks the key up until the cache goes to the database for it again: before the entry expires, so the announcement did it. */
  const reloaded = async () => {
    const before = loads;
    await eventually(async () => (await lookup()) && loads > before, {
      withinMs: loadedAt + TTL_MS - Date.now(),
      intervalMs: 20,
      what: 'a lookup that reaches the database',
    });
  };

  before(async () => {
    stack = await startStack();
    // A connection of its own, named, so the test can cut exactly this listener off.
    const url = new URL(stack.config.DATABASE_URL);
    url.searchParams.set('application_name', LISTENER_APP);
    listenerDb = createKnex({ DATABASE_URL: url.toString(), DATABASE_POOL_MAX: 1 });
    listener = listenForNotifications({
      db: listenerDb,
      channel: API_KEYS_CHANGED_CHANNEL,
      logger: createLogger('silent', 'test'),
      onNotification: cache.forget,
      onLive: (live) => {
        liveStates.push(live);
        cache.setLive(live);
      },
    });
    await eventually(async () => liveStates.at(-1) === true, { what: 'the listener live' });
  });
  after(async () => {
    await listener.close();
    await listenerDb.destroy();
    await stack.close();
  });

  it('answers from memory until a change to api_keys (in any session) is announced, then reads again', async () => {
    await lookup();
    const afterFirst = loads;
    await lookup();
    assert.equal(loads, afterFirst, 'the second lookup came from memory');
    // Any statement on api_keys announces a change, even one that touches no row.
    await stack.infra.db.raw('UPDATE api_keys SET prefix = prefix WHERE false');
    await reloaded();
    await lookup();
    await stack.infra.db.raw('UPDATE tenants SET name = name WHERE false');
    await reloaded();
  });

  it('stops answering from memory the moment its connection is cut, and resumes once it has listened again', async () => {
    await lookup();
    // Only in this run's database: the cluster is shared, and another run's listener has the same name.
    const cut = await stack.infra.db.raw(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()',
      [LISTENER_APP],
    );
    assert.equal(cut.rows.length, 1);
    await eventually(async () => liveStates.at(-1) === false, { what: 'the listener to notice' });
    const offline = loads;
    await lookup();
    await lookup();
    assert.equal(loads, offline + 2, 'every lookup reads while the listener is down (it retries after a second)');
    await eventually(async () => liveStates.at(-1) === true, { what: 'the listener back' });
    await lookup();
    const back = loads;
    await lookup();
    assert.equal(loads, back);
  });

  it('the API refuses a key revoked by another process as soon as the notification of the change lands', async () => {
    const tenant = await createTenant(stack, 'Cached');
    const cachedAt = Date.now();
    assert.equal((await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: tenant.apiKey })).status, 200);
    assert.equal((await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: tenant.apiKey })).status, 200);
    await stack.infra.db.raw('UPDATE api_keys SET revoked_at = now() WHERE tenant_id = ?', [tenant.tenantId]);
    await eventually(async () => (await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: tenant.apiKey })).status === 401, {
      // Before the API's cached entry could expire: the notification refused it, not the TTL.
      withinMs: cachedAt + stack.config.API_KEY_CACHE_TTL - Date.now(),
      intervalMs: 10,
      what: 'the revoked key refused',
    });
  });
});
