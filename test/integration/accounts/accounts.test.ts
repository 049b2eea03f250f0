import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { provisionAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

describe('virtual-account provisioning', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  it('provisions an account with the provider and creates its customer (tier 1, KYC none)', async () => {
    const externalRef = `cust-${randomUUID()}`;
    const response = await call(stack.apiUrl, 'POST', '/v1/accounts', {
      apiKey: tenant.apiKey,
      body: { externalRef, name: '  Ada Obi ', bvn: '22212345678', callbackUrl: 'http://127.0.0.1:9/hook', expectedAmount: '5025.00' },
    });
    assert.equal(response.status, 201);
    const account = response.body;
    assert.match(account.AccountRef, /^va_[a-z0-9]{6}_[a-z0-9]{12}$/);
    assert.match(account.BankAccountNumber, /^\d{10}$/);
    assert.equal(account.BankAccountName, 'Ada Obi');
    assert.equal(account.Currency, 'NGN');
    assert.equal(account.Status, 'active');
    assert.equal(account.ExpectedAmount, '5025.00');
    assert.equal(account.CallbackURL, 'http://127.0.0.1:9/hook');
    assert.ok(!JSON.stringify(account).includes('22212345678'));
    const customer = await stack.infra.db('customers').where({ id: account.CustomerID }).first();
    assert.equal(customer.tenant_id, tenant.tenantId);
    assert.equal(customer.external_ref, externalRef);
    assert.equal(customer.kyc_tier, 1);
    assert.equal(customer.kyc_status, 'none');
    assert.equal(customer.bvn_last4, '5678');
    assert.ok(customer.bvn_enc && !customer.bvn_enc.includes('22212345678'));
  });

  it('makes a new account on each call without a key, reusing the customer of the same externalRef', async () => {
    const externalRef = `cust-${randomUUID()}`;
    const first = await provisionAccount(stack, tenant.apiKey, { externalRef });
    const second = await provisionAccount(stack, tenant.apiKey, { externalRef });
    assert.notEqual(first.AccountRef, second.AccountRef);
    assert.notEqual(first.BankAccountNumber, second.BankAccountNumber);
    assert.equal(first.CustomerID, second.CustomerID);
  });

  it('returns the same account for a repeated Idempotency-Key and body, and 409 for a different body', async () => {
    const key = randomUUID();
    const body = { externalRef: `cust-${randomUUID()}`, name: 'Bola Ade' };
    const first = await call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, body, headers: { 'Idempotency-Key': key } });
    const again = await call(stack.apiUrl, 'POST', '/v1/accounts', {
      apiKey: tenant.apiKey,
      body: { name: 'Bola Ade', externalRef: body.externalRef },
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(first.status, 201);
    assert.deepEqual(again.body, first.body);
    const different = await call(stack.apiUrl, 'POST', '/v1/accounts', {
      apiKey: tenant.apiKey,
      body: { ...body, name: 'Someone Else' },
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(different.status, 409);
    assert.equal(different.body.code, 'conflict');
  });

  it('makes exactly one account for 20 concurrent identical requests with one key', async () => {
    const key = randomUUID();
    const body = { externalRef: `cust-${randomUUID()}`, name: 'Chidi Eze' };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, body, headers: { 'Idempotency-Key': key } }),
      ),
    );
    assert.ok(
      responses.every((response) => response.status === 201),
      responses.map((response) => response.status).join(','),
    );
    assert.equal(new Set(responses.map((response) => response.body.AccountRef)).size, 1);
    const customer = await stack.infra.db('customers').where({ tenant_id: tenant.tenantId, external_ref: body.externalRef }).first();
    const accounts = await stack.infra.db('virtual_accounts').where({ customer_id: customer.id });
    assert.equal(accounts.length, 1);
  });

  it('answers 503 "provider unavailable" with Retry-After while the provider is down, makes nothing, and completes on retry with the same key', async () => {
    const key = randomUUID();
    const body = { externalRef: `cust-${randomUUID()}`, name: 'Dayo Ola' };
    await call(stack.sandboxUrl, 'POST', '/sandbox/faults', { body: { failureRate: 1, routes: ['/v1/accounts/virtual'] } });
    try {
      const down = await call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, body, headers: { 'Idempotency-Key': key } });
      assert.equal(down.status, 503);
      // A registration is not asked again; the provider sent no Retry-After, so the client is told 1 s.
      assert.deepEqual(
        { error: down.body.error, code: down.body.code, retryAfter: down.headers.get('retry-after') },
        { error: 'provider unavailable: try again in 1 s', code: 'provider_unavailable', retryAfter: '1' },
      );
      assert.equal(
        await stack.infra.db('customers').where({ tenant_id: tenant.tenantId, external_ref: body.externalRef }).first(),
        undefined,
      );
    } finally {
      await call(stack.sandboxUrl, 'DELETE', '/sandbox/faults');
    }
    const reserved = await stack.infra.db('idempotency_keys').where({ tenant_id: tenant.tenantId, key }).first();
    const retried = await call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, body, headers: { 'Idempotency-Key': key } });
    assert.equal(retried.status, 201);
    assert.equal(retried.body.AccountRef, reserved.resource_ref);
  });

  it('validates input and names the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: 'x' }, /^externalRef is required$/],
      [{ externalRef: 'a', name: '' }, /^name must be at least 1 characters$/],
      [{ externalRef: 'a', name: 'x', bvn: '123' }, /^bvn must be exactly 11 digits$/],
      [{ externalRef: 'a', name: 'x', expectedAmount: '-5' }, /^expectedAmount must be a positive amount/],
      [{ externalRef: 'a', name: 'x', expectedAmount: 5 }, /^expectedAmount must be a positive amount/],
      [{ externalRef: 'a', name: 'x', callbackUrl: 'ftp://example.com/x' }, /^callbackUrl must be an absolute http\(s\) URL$/],
      [{ externalRef: 'a', name: 'x', callbackUrl: 'not a url' }, /^callbackUrl must be an absolute http\(s\) URL$/],
    ];
    for (const [body, message] of cases) {
      const response = await call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, body });
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.match(response.body.error, message);
    }
  });

  it("reads one account, and reports another tenant's as not found", async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const mine = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}`, { apiKey: tenant.apiKey });
    assert.equal(mine.status, 200);
    assert.equal(mine.body.ID, account.ID);
    const other = await createTenant(stack, 'Other');
    for (const path of [
      `/v1/accounts/${account.AccountRef}`,
      `/v1/accounts/${account.AccountRef}/balance`,
      `/v1/accounts/${account.AccountRef}/statement`,
    ]) {
      const theirs = await call(stack.apiUrl, 'GET', path, { apiKey: other.apiKey });
      assert.equal(theirs.status, 404, path);
      assert.equal(theirs.body.error, 'account not found');
    }
  });

  it('lists accounts 20 a page with the pagination object', async () => {
    const lister = await createTenant(stack, 'Lister');
    const made = [];
    for (let i = 0; i < 23; i += 1) made.push((await provisionAccount(stack, lister.apiKey)).AccountRef);
    const first = await call(stack.apiUrl, 'GET', '/v1/accounts', { apiKey: lister.apiKey });
    assert.equal(first.body.accounts.length, 20);
    assert.equal(first.body.pagination.limit, 20);
    assert.equal(first.body.pagination.hasMore, true);
    const second = await call(stack.apiUrl, 'GET', `/v1/accounts?after=${first.body.pagination.nextCursor}`, { apiKey: lister.apiKey });
    assert.equal(second.body.accounts.length, 3);
    assert.deepEqual(second.body.pagination, { limit: 20, nextCursor: null, hasMore: false });
    assert.deepEqual(
      [...first.body.accounts, ...second.body.accounts].map((account: { AccountRef: string }) => account.AccountRef),
      made,
    );
    const bad = await call(stack.apiUrl, 'GET', '/v1/accounts?after=nope', { apiKey: lister.apiKey });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid cursor');
  });

  it('documents the account routes in the OpenAPI document', async () => {
    const document = (await call(stack.apiUrl, 'GET', '/openapi.json')).body;
    assert.ok(document.paths['/v1/accounts'].post.parameters.some((parameter: { name: string }) => parameter.name === 'Idempotency-Key'));
    assert.ok(document.paths['/v1/accounts'].get);
    assert.ok(document.paths['/v1/accounts/{accountRef}'].get);
    assert.ok(document.paths['/v1/accounts/{accountRef}/balance'].get);
  });
});

describe('callback URL policy', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ ALLOW_PRIVATE_CALLBACK_URLS: 'false' });
  });
  after(() => stack.close());

  it('refuses loopback and private callback targets unless ALLOW_PRIVATE_CALLBACK_URLS is on', async () => {
    const tenant = await createTenant(stack);
    for (const callbackUrl of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://10.1.2.3/hook',
      'http://[::1]/hook',
      'http://169.254.169.254/latest',
    ]) {
      const response = await call(stack.apiUrl, 'POST', '/v1/accounts', {
        apiKey: tenant.apiKey,
        body: { externalRef: 'a', name: 'x', callbackUrl },
      });
      assert.equal(response.status, 400, callbackUrl);
      assert.equal(response.body.error, 'callbackUrl must not point at a private or loopback address');
    }
  });
});
