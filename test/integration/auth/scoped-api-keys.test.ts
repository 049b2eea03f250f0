import assert from 'node:assert/strict';
import knex from 'knex';
import { generateApiKey } from '../../../src/auth/api-keys';
import { migrationConfig } from '../../../src/db';
import { uuidv7 } from '../../../src/ids';
import { API_KEY_SCOPE_NAMES } from '../../../src/http/api-key-scopes';
import { provisionAccount } from '../../helpers/fixtures';
import { call, eventually, type HttpResponse } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

interface ApiKeyOperation {
  method: string;
  /** With its path parameters filled in with values no row has. */
  path: string;
  scope: string;
}

const NO_SUCH_ID = '00000000-0000-7000-8000-000000000000';

/** Every /v1 operation an API key may call, from the served OpenAPI document: a route added later is in it too. */
async function apiKeyOperations(stack: Stack): Promise<ApiKeyOperation[]> {
  const document = (await call(stack.apiUrl, 'GET', '/openapi.json')).body;
  const operations: ApiKeyOperation[] = [];
  for (const [path, methods] of Object.entries<Record<string, { security: Array<Record<string, unknown>>; 'x-required-scope'?: string }>>(
    document.paths,
  )) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!operation.security.some((scheme) => 'ApiKeyAuth' in scheme)) continue;
      assert.ok(operation['x-required-scope'], `${method.toUpperCase()} ${path} names no scope`);
      operations.push({ method: method.toUpperCase(), path: path.replace(/\{\w+\}/g, NO_SUCH_ID), scope: operation['x-required-scope'] });
    }
  }
  return operations;
}

function send(stack: Stack, apiKey: string, operation: ApiKeyOperation, headers: Record<string, string> = {}): Promise<HttpResponse> {
  const hasBody = operation.method !== 'GET' && operation.method !== 'DELETE';
  return call(stack.apiUrl, operation.method, operation.path, { apiKey, headers, ...(hasBody ? { body: {} } : {}) });
}

const describeOperation = (operation: ApiKeyOperation, response: HttpResponse) =>
  `${operation.method} ${operation.path} (${operation.scope}): ${response.status} ${response.text}`;

describe('scoped api keys', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let admin: string;
  let operations: ApiKeyOperation[];
  let writes: ApiKeyOperation[];

  const createKey = (body: Record<string, unknown>) => call(stack.apiUrl, 'POST', '/auth/api-keys', { cookie: admin, body });
  const keyWith = async (body: Record<string, unknown>): Promise<{ id: string; key: string }> => {
    const created = await createKey({ name: 'test key', ...body });
    assert.equal(created.status, 201, created.text);
    return { id: created.body.ID, key: created.body.Key };
  };
  const me = (apiKey: string, headers: Record<string, string> = {}) => call(stack.apiUrl, 'GET', '/v1/me', { apiKey, headers });

  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    admin = await dashboardSession(stack, tenant.tenantId);
    operations = await apiKeyOperations(stack);
    writes = operations.filter((operation) => operation.scope !== 'read');
  });
  after(async () => {
    await stack?.close();
  });

  it('lists every /v1 write with a scope of its own, never read, and none for approving', () => {
    assert.ok(writes.length >= 20, `only ${writes.length} writes found`);
    for (const operation of operations) assert.ok(API_KEY_SCOPE_NAMES.includes(operation.scope as never), operation.scope);
    assert.ok(
      operations.every(
        (operation) => operation.method === 'GET' || operation.scope !== 'read' || operation.path === '/v1/transfers/lookup',
      ),
    );
    assert.ok(!API_KEY_SCOPE_NAMES.some((scope) => scope.startsWith('approv')));
  });

  it('makes a key read-only unless told more, and refuses it with 403 naming the scope on every write', async () => {
    const created = await createKey({ name: 'reporting' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.Scopes, ['read']);
    const readOnly: string = created.body.Key;
    for (const operation of operations.filter((each) => each.scope === 'read')) {
      const response = await send(stack, readOnly, operation);
      assert.notEqual(response.body?.code, 'missing_scope', describeOperation(operation, response));
    }
    for (const operation of writes) {
      const response = await send(stack, readOnly, operation);
      assert.equal(response.status, 403, describeOperation(operation, response));
      assert.equal(response.body.code, 'missing_scope');
      assert.equal(response.body.requiredScope, operation.scope);
      assert.equal(response.body.error, `this api key lacks the ${operation.scope} scope`);
    }
  });

  it('lets a key with one scope do exactly the writes of that scope, and no reads', async () => {
    for (const scope of API_KEY_SCOPE_NAMES.filter((name) => name !== 'read')) {
      const { key } = await keyWith({ scopes: [scope] });
      for (const operation of operations) {
        const response = await send(stack, key, operation);
        if (operation.scope === scope) assert.notEqual(response.body?.code, 'missing_scope', describeOperation(operation, response));
        else assert.equal(response.body?.requiredScope, operation.scope, `${scope} key: ${describeOperation(operation, response)}`);
      }
    }
    const { key: opener } = await keyWith({ scopes: ['accounts:write'] });
    const opened = await provisionAccount(stack, opener);
    assert.equal((await call(stack.apiUrl, 'GET', `/v1/accounts/${opened.AccountRef}`, { apiKey: opener })).status, 403);
    const { key: reader } = await keyWith({ scopes: ['read'] });
    assert.equal((await call(stack.apiUrl, 'GET', `/v1/accounts/${opened.AccountRef}`, { apiKey: reader })).status, 200);
  });

  it("leaves a key with every scope (the tenant's first, and * from the dashboard) able to call every route", async () => {
    const { key: everything } = await keyWith({ scopes: ['*'] });
    for (const apiKey of [tenant.apiKey, everything]) {
      for (const operation of operations) {
        const response = await send(stack, apiKey, operation);
        assert.ok(
          response.status !== 401 && response.status < 500 && response.body?.code !== 'missing_scope',
          describeOperation(operation, response),
        );
      }
    }
    const listed = (await call(stack.apiUrl, 'GET', '/auth/api-keys', { cookie: admin })).body.apiKeys;
    assert.deepEqual(listed.find((entry: { Prefix: string }) => entry.Prefix === tenant.apiKey.slice(0, 11)).Scopes, ['*']);
  });

  it('refuses scopes it does not know, approvals among them, with 400', async () => {
    for (const scopes of [['approvals'], ['read', 'payouts:approve'], []]) {
      const refused = await createKey({ name: 'bad', scopes });
      assert.equal(refused.status, 400, refused.text);
    }
    assert.equal((await createKey({ scopes: ['read'] })).status, 400, 'a key needs a name');
  });

  it('refuses a key from an address outside its allowed sources with 403, and takes it from one inside', async () => {
    const { key: elsewhere } = await keyWith({ allowedSources: ['10.0.0.0/8', '2001:db8::/32'] });
    const refused = await me(elsewhere);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.code, 'address_not_allowed');
    // Without TRUST_PROXY the client cannot choose its address by writing X-Forwarded-For.
    assert.equal((await me(elsewhere, { 'X-Forwarded-For': '10.1.2.3' })).status, 403);
    const { key: here } = await keyWith({ allowedSources: ['10.0.0.0/8', '127.0.0.0/24'] });
    assert.equal((await me(here)).status, 200);
    const invalid = await createKey({ name: 'bad', allowedSources: ['10.0.0.300'] });
    assert.equal(invalid.status, 400);
    assert.match(invalid.text, /10\.0\.0\.300 is not an IP address or CIDR range/);
  });

  it('stops a key at its expiry with 401, and refuses an expiry already past', async () => {
    assert.equal((await createKey({ name: 'late', expiresAt: new Date(Date.now() - 60_000).toISOString() })).status, 400);
    const { id, key } = await keyWith({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    assert.equal((await me(key)).status, 200);
    await stack.infra
      .db('api_keys')
      .where({ id })
      .update({ expires_at: stack.infra.db.raw("now() - interval '1 second'") });
    const expired = await eventually(async () => {
      const response = await me(key);
      return response.status === 401 && response;
    });
    assert.equal(expired.body.code, 'api_key_expired');
  });

  it('rotates a key: the new secret works at once, the old one until the chosen end of the overlap, then 401', async () => {
    const { id, key: first } = await keyWith({ scopes: ['read', 'webhooks:write'] });
    const overlapEnd = new Date(Date.now() + 3_600_000);
    const rotated = await call(stack.apiUrl, 'POST', `/auth/api-keys/${id}/rotate`, {
      cookie: admin,
      body: { replacedSecretValidUntil: overlapEnd.toISOString() },
    });
    assert.equal(rotated.status, 200, rotated.text);
    const second: string = rotated.body.Key;
    assert.notEqual(second, first);
    assert.equal(rotated.body.ID, id);
    assert.deepEqual(rotated.body.Scopes, ['read', 'webhooks:write']);
    assert.equal(rotated.body.ReplacedSecretValidUntil, overlapEnd.toISOString());
    assert.equal((await me(first)).status, 200, 'the replaced secret works during the overlap');
    assert.equal((await me(second)).status, 200);
    const dropped = { method: 'POST', path: '/v1/accounts', scope: 'accounts:write' };
    assert.equal((await send(stack, first, dropped)).body.requiredScope, 'accounts:write', "the replaced secret keeps the key's scopes");

    // The overlap's end, moved to a moment ago.
    await stack.infra
      .db('api_keys')
      .where({ id })
      .update({ replaced_key_valid_until: stack.infra.db.raw("now() - interval '1 second'") });
    const ended = await eventually(async () => {
      const response = await me(first);
      return response.status === 401 && response;
    });
    assert.equal(ended.body.code, 'api_key_rotated');
    assert.equal((await me(second)).status, 200);

    // Rotating again: the secret just replaced overlaps; the one before it is gone for good.
    const again = await call(stack.apiUrl, 'POST', `/auth/api-keys/${id}/rotate`, { cookie: admin, body: {} });
    assert.equal(again.status, 200, again.text);
    const defaultEnd = Date.parse(again.body.ReplacedSecretValidUntil) - Date.now();
    assert.ok(defaultEnd > 23 * 3_600_000 && defaultEnd <= 24 * 3_600_000, `default overlap ${defaultEnd} ms`);
    assert.equal((await me(second)).status, 200);
    assert.equal((await me(again.body.Key)).status, 200);
    assert.equal((await me(first)).status, 401);

    const tooLong = new Date(Date.now() + 8 * 24 * 3_600_000).toISOString();
    const refused = await call(stack.apiUrl, 'POST', `/auth/api-keys/${id}/rotate`, {
      cookie: admin,
      body: { replacedSecretValidUntil: tooLong },
    });
    assert.equal(refused.status, 400, refused.text);
    const audit = await stack.infra.db('audit_log').where({ target_id: id }).orderBy('id').select('action');
    assert.deepEqual(
      audit.map((row) => row.action),
      ['api_key.created', 'api_key.rotated', 'api_key.rotated'],
    );
  });

  it('records when a key was last used, at most once a minute', async () => {
    const { id, key } = await keyWith({});
    const lastUsed = async () => {
      const listed = (await call(stack.apiUrl, 'GET', '/auth/api-keys', { cookie: admin })).body.apiKeys;
      return listed.find((entry: { ID: string }) => entry.ID === id).LastUsedAt as string | null;
    };
    assert.equal(await lastUsed(), null);
    const before = Date.now();
    assert.equal((await me(key)).status, 200);
    const first = await eventually(lastUsed);
    assert.ok(Date.parse(first) >= before - 1_000);
    assert.equal((await me(key)).status, 200);
    const rows = await stack.infra.db('api_key_uses').where({ api_key_id: id });
    assert.equal(rows.length, 1);
    assert.equal(await lastUsed(), first, 'a second use within the minute writes nothing');
  });
});

describe('scoped api keys behind a trusted proxy', () => {
  let stack: Stack;
  let admin: string;

  before(async () => {
    stack = await startStack({ TRUST_PROXY: 'true' });
    admin = await dashboardSession(stack, (await createTenant(stack)).tenantId);
  });
  after(async () => {
    await stack?.close();
  });

  it('judges the address the proxy appended to X-Forwarded-For, not one the client wrote before it', async () => {
    const keyFrom = async (allowedSources: string[]) =>
      (await call(stack.apiUrl, 'POST', '/auth/api-keys', { cookie: admin, body: { name: 'proxied', allowedSources } })).body.Key as string;
    const office = await keyFrom(['198.51.100.0/24']);
    const meFrom = (apiKey: string, forwardedFor: string) =>
      call(stack.apiUrl, 'GET', '/v1/me', { apiKey, headers: { 'X-Forwarded-For': forwardedFor } });
    assert.equal((await meFrom(office, '198.51.100.7')).status, 200);
    assert.equal((await meFrom(office, '198.51.100.7, 203.0.113.9')).status, 403, 'the client wrote the office address first');
    assert.equal((await meFrom(office, '203.0.113.9')).status, 403);
  });
});

describe('scoped api keys migration', () => {
  const name = `ledger_test_${Date.now()}_api_key_scopes`;
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL!;
  const admin = knex({ client: 'pg', connection: adminUrl });
  let stack: Stack | undefined;

  after(async () => {
    await stack?.close();
    await admin.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.destroy());
  });

  it('gives every key made before it every scope, so it keeps working on reads and writes', async () => {
    await admin.raw(`CREATE DATABASE "${name}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const db = knex({ client: 'pg', connection: url.toString() });
    const apiKey = generateApiKey();
    try {
      for (;;) {
        const [, pending] = (await db.migrate.list(migrationConfig)) as [unknown[], Array<{ file: string }>];
        if (pending[0]!.file.startsWith('20261206000100_scoped_api_keys')) break;
        await db.migrate.up(migrationConfig);
      }
      const tenantId = uuidv7();
      await db('tenants').insert({ id: tenantId, name: 'Before scopes', ref_prefix: 'bfrscp' });
      await db('api_keys').insert({ id: uuidv7(), tenant_id: tenantId, prefix: apiKey.prefix, key_hash: apiKey.hash });
      await db.migrate.latest(migrationConfig);
      const migrated = await db('api_keys').where({ prefix: apiKey.prefix }).first('name', 'scopes', 'allowed_sources', 'expires_at');
      assert.deepEqual(migrated, { name: `Key ${apiKey.prefix}`, scopes: ['*'], allowed_sources: null, expires_at: null });
    } finally {
      await db.destroy();
    }
    stack = await startStack({ DATABASE_URL: url.toString() });
    assert.equal((await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: apiKey.key })).status, 200);
    for (const operation of await apiKeyOperations(stack)) {
      const response = await send(stack, apiKey.key, operation);
      assert.ok(response.status !== 401 && response.body?.code !== 'missing_scope', describeOperation(operation, response));
    }
  });
});
