import assert from 'node:assert/strict';
import { provisionAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

describe('HTTP basics and authentication', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  it('answers /healthz and /readyz, with a request id on every response', async () => {
    const health = await call(stack.apiUrl, 'GET', '/healthz');
    assert.equal(health.status, 200);
    assert.match(health.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const ready = await call(stack.apiUrl, 'GET', '/readyz', { headers: { 'X-Request-Id': 'trace-123' } });
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready', checks: { database: 'up', temporal: 'up' } });
    assert.equal(ready.headers.get('x-request-id'), 'trace-123');
  });

  it('marks every response that may carry secrets or personal data Cache-Control: no-store', async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey, { bvn: '22212345678' });
    const cookie = await dashboardSession(stack, tenant.tenantId);
    const privateResponses = [
      await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: tenant.apiKey }),
      await call(stack.apiUrl, 'GET', `/v1/customers/${account.CustomerID}`, { apiKey: tenant.apiKey }),
      await call(stack.apiUrl, 'GET', '/v1/customers', { apiKey: tenant.apiKey }),
      await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}`, { apiKey: tenant.apiKey }),
      await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/statement`, { apiKey: tenant.apiKey }),
      await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey }),
      await call(stack.apiUrl, 'GET', '/v1/webhooks/dead-letters', { apiKey: tenant.apiKey }),
      await call(stack.apiUrl, 'POST', '/auth/webhook-secret', { cookie, body: {} }),
      await call(stack.apiUrl, 'POST', '/auth/login', { body: { email: 'nobody@example.com', password: 'wrong password' } }),
      await call(stack.apiUrl, 'GET', '/v1/customers', { apiKey: 'sk_not-a-real-key' }),
    ];
    for (const response of privateResponses)
      assert.equal(response.headers.get('cache-control'), 'no-store', `${response.status} ${response.text.slice(0, 80)}`);
    assert.equal((await call(stack.apiUrl, 'GET', '/openapi.json')).headers.get('cache-control'), null);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const response = await call(stack.apiUrl, 'GET', '/v1/nothing-here');
    assert.equal(response.status, 404);
    assert.equal(response.body.code, 'not_found');
    assert.equal(typeof response.body.error, 'string');
  });

  it('routes a path whatever its case and a trailing slash, as the routes are matched', async () => {
    const tenant = await createTenant(stack);
    const response = await call(stack.apiUrl, 'GET', '/V1/Me/', { apiKey: tenant.apiKey });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.tenantId, tenant.tenantId);
    assert.equal((await call(stack.apiUrl, 'GET', '/HEALTHZ')).status, 200);
  });

  it('answers a wrong method on a known path with 405', async () => {
    const response = await call(stack.apiUrl, 'DELETE', '/v1/me');
    assert.equal(response.status, 405);
    assert.equal(response.body.code, 'method_not_allowed');
  });

  it('refuses a missing, unknown or revoked API key with 401 and the same body', async () => {
    const expected = { error: 'invalid api key', code: 'unauthorized' };
    const missing = await call(stack.apiUrl, 'GET', '/v1/me');
    assert.equal(missing.status, 401);
    assert.deepEqual({ error: missing.body.error, code: missing.body.code }, expected);
    const unknown = await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: 'sk_not-a-real-key' });
    assert.equal(unknown.status, 401);
    assert.deepEqual({ error: unknown.body.error, code: unknown.body.code }, expected);
    const tenant = await createTenant(stack);
    await stack.services.auth.revokeApiKey(tenant.apiKey.slice(0, 11));
    const revoked = await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: tenant.apiKey });
    assert.equal(revoked.status, 401);
    assert.deepEqual({ error: revoked.body.error, code: revoked.body.code }, expected);
  });

  it("answers GET /v1/me with the key's tenant", async () => {
    const tenant = await createTenant(stack, 'Acme Payments');
    const response = await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: tenant.apiKey });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { tenantId: tenant.tenantId, name: 'Acme Payments' });
  });

  it('answers malformed JSON with 400 and an oversize body with 413', async () => {
    const tenant = await createTenant(stack);
    const malformed = await call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, rawBody: '{"externalRef": ' });
    assert.equal(malformed.status, 400);
    assert.deepEqual({ error: malformed.body.error, code: malformed.body.code }, { error: 'invalid json', code: 'invalid_json' });
    const huge = await call(stack.apiUrl, 'POST', '/v1/accounts', {
      apiKey: tenant.apiKey,
      rawBody: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
    });
    assert.equal(huge.status, 413);
    assert.equal(huge.body.code, 'payload_too_large');
  });

  it('answers oversize request headers with 431 and the JSON error body', async () => {
    const response = await call(stack.apiUrl, 'GET', '/v1/me', { headers: { 'X-Padding': 'x'.repeat(20_000) } });
    assert.equal(response.status, 431);
    assert.deepEqual(response.body, { error: 'request headers too large', code: 'headers_too_large' });
  });

  it('answers a missing field with 400 naming the field', async () => {
    const tenant = await createTenant(stack);
    const response = await call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, body: { name: 'Ada' } });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'externalRef is required');
    assert.deepEqual(response.body.details, [{ path: 'externalRef', message: 'externalRef is required' }]);
  });

  describe('dashboard sessions', () => {
    const email = `ops+${Date.now()}@example.com`;
    const password = 'correct horse battery staple';
    before(async () => {
      const tenant = await createTenant(stack);
      await stack.services.auth.createUser(tenant.tenantId, email, password);
    });

    it('refuses a wrong email or password with 401', async () => {
      const wrongPassword = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email, password: 'nope' } });
      assert.equal(wrongPassword.status, 401);
      const wrongEmail = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email: 'nobody@example.com', password } });
      assert.equal(wrongEmail.status, 401);
      assert.equal(wrongEmail.body.error, wrongPassword.body.error);
    });

    it('logs in with an HttpOnly, SameSite=Strict session cookie, and logs out by revoking it', async () => {
      const login = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email: email.toUpperCase(), password } });
      assert.equal(login.status, 200);
      const setCookie = login.headers.get('set-cookie') ?? '';
      assert.match(setCookie, /^session=[A-Za-z0-9_-]{40,};/);
      assert.match(setCookie, /httponly/i);
      assert.match(setCookie, /samesite=strict/i);
      const cookie = setCookie.split(';')[0]!;
      const logout = await call(stack.apiUrl, 'POST', '/auth/logout', { cookie });
      assert.equal(logout.status, 204);
      const again = await call(stack.apiUrl, 'POST', '/auth/logout', { cookie });
      assert.equal(again.status, 401);
    });

    it('never lets an API key stand in for a session, and refuses a foreign Origin', async () => {
      const tenant = await createTenant(stack);
      const withKey = await call(stack.apiUrl, 'POST', '/auth/logout', { apiKey: tenant.apiKey });
      assert.equal(withKey.status, 401);
      const login = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email, password } });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const foreign = await call(stack.apiUrl, 'POST', '/auth/logout', { cookie, headers: { Origin: 'https://evil.example' } });
      assert.equal(foreign.status, 403);
      const sameOrigin = await call(stack.apiUrl, 'POST', '/auth/logout', { cookie, headers: { Origin: stack.apiUrl } });
      assert.equal(sameOrigin.status, 204);
    });
  });

  it('serves an OpenAPI document generated from the route schemas', async () => {
    const response = await call(stack.apiUrl, 'GET', '/openapi.json');
    assert.equal(response.status, 200);
    assert.equal(response.body.openapi, '3.0.3');
    assert.ok(response.body.paths['/v1/me'].get);
    assert.ok(response.body.paths['/v1/accounts/{accountRef}/settle'].post.requestBody);
  });
});
