import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent } from '../../helpers/fixtures';
import { call, type HttpResponse } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack } from '../../helpers/stack';
import { accountHolderName } from '../../../src/sandbox/names';

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

function assertLimited(response: HttpResponse, message: RegExp): void {
  assert.equal(response.status, 429, response.text);
  assert.equal(response.body.code, 'rate_limited');
  assert.match(response.body.error, message);
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After: ${response.headers.get('retry-after')}`);
}

describe('rate limits (Postgres-backed, shared by every API process)', () => {
  describe('sign-in', () => {
    let stack: Stack;
    let behindProxy: Stack;
    before(async () => {
      stack = await startStack({ RATE_LIMIT_SIGNIN_ADDRESS: '15/15m' });
      behindProxy = await startStack({ TRUST_PROXY: 'true', RATE_LIMIT_SIGNIN_ADDRESS: '3/15m' });
    });
    after(() => Promise.all([stack.close(), behindProxy.close()]));

    const login = (target: Stack, email: string, password: string, headers: Record<string, string> = {}) =>
      call(target.apiUrl, 'POST', '/auth/login', { body: { email, password }, headers });

    it('answers 429 with Retry-After after 10 failed attempts for one email, even with the right password, without touching others', async () => {
      const tenant = await createTenant(stack);
      const email = `ops+${randomUUID()}@example.com`;
      await stack.services.auth.createUser(tenant.tenantId, email, 'the right dashboard password');
      // A success gives its attempt back: it does not count towards the limit.
      assert.equal((await login(stack, email, 'the right dashboard password')).status, 200);
      for (let attempt = 1; attempt <= 10; attempt += 1)
        assert.equal((await login(stack, email.toUpperCase(), 'a wrong password')).status, 401, `attempt ${attempt}`);
      assertLimited(await login(stack, email, 'the right dashboard password'), /sign-in attempts for this account/);
      assertLimited(await login(stack, email, 'a wrong password'), /sign-in attempts for this account/);
      const other = `ops+${randomUUID()}@example.com`;
      assert.equal((await login(stack, other, 'a wrong password')).status, 401);
    });

    it('limits one client address across emails; X-Forwarded-For counts only under TRUST_PROXY', async () => {
      // Without TRUST_PROXY, a forged X-Forwarded-For changes nothing: every attempt is from this address. Sixteen
      // attempts pass the address's 15 whatever the tests before this one spent.
      const spoofed = await Promise.all(
        Array.from({ length: 16 }, (_, index) =>
          login(stack, `nobody+${randomUUID()}@example.com`, 'wrong', { 'X-Forwarded-For': `198.51.100.${index + 1}` }),
        ),
      );
      assert.ok(
        spoofed.some((response) => response.status === 429),
        spoofed.map((response) => response.status).join(','),
      );

      for (let attempt = 1; attempt <= 3; attempt += 1) {
        assert.equal(
          (await login(behindProxy, `nobody+${randomUUID()}@example.com`, 'wrong', { 'X-Forwarded-For': '203.0.113.7' })).status,
          401,
        );
      }
      assertLimited(
        await login(behindProxy, `nobody+${randomUUID()}@example.com`, 'wrong', { 'X-Forwarded-For': '203.0.113.7' }),
        /from this address/,
      );
      // The address is the one the proxy appended, not what the client put in front of it.
      assertLimited(
        await login(behindProxy, `nobody+${randomUUID()}@example.com`, 'wrong', { 'X-Forwarded-For': '192.0.2.1, 203.0.113.7' }),
        /from this address/,
      );
      assert.equal(
        (await login(behindProxy, `nobody+${randomUUID()}@example.com`, 'wrong', { 'X-Forwarded-For': '203.0.113.8' })).status,
        401,
      );
    });
  });

  describe('per tenant', () => {
    let first: Stack;
    let second: Stack;
    const limits = {
      RATE_LIMIT_SETTLEMENTS: '6/1m',
      RATE_LIMIT_NAME_LOOKUPS: '3/1m',
      RATE_LIMIT_REPLAYS: '2/1m',
      RATE_LIMIT_SETTLEMENT_BATCH_ITEMS: '10/1m',
    };
    before(async () => {
      // Two API instances on one database, as behind a load balancer.
      first = await startStack(limits);
      second = await startStack(limits);
    });
    after(() => Promise.all([first.close(), second.close()]));

    it('limits settlements per tenant across processes, leaving other tenants alone', async () => {
      const tenant = await createTenant(first);
      const account = await provisionAccount(first, tenant.apiKey);
      await fundAccount(first, account.ID, 1_000_000n);
      const settle = (stack: Stack, apiKey = tenant.apiKey, ref = account.AccountRef) =>
        call(stack.apiUrl, 'POST', `/v1/accounts/${ref}/settle`, { apiKey, body: { amount: '1.00', ...DESTINATION } });
      for (const stack of [first, second, first, second, first, second]) assert.equal((await settle(stack)).status, 202);
      assertLimited(await settle(first), /too many settlements/);
      assertLimited(await settle(second), /too many settlements/);

      const other = await createTenant(first);
      const otherAccount = await provisionAccount(first, other.apiKey);
      await fundAccount(first, otherAccount.ID, 100_000n);
      assert.equal((await settle(second, other.apiKey, otherAccount.AccountRef)).status, 202);
    });

    it('limits settlement batch items per tenant across processes, weighted by items: batches and dry runs alike, on the API and the dashboard', async () => {
      const tenant = await createTenant(first);
      const items = (count: number) =>
        Array.from({ length: count }, (_, index) => ({
          reference: `r-${index}`,
          accountRef: 'va_nobody_000000000000',
          amount: '1.00',
          ...DESTINATION,
        }));
      const dryRun = (stack: Stack, count: number, apiKey = tenant.apiKey) =>
        call(stack.apiUrl, 'POST', '/v1/settlement-batches?dryRun=true', { apiKey, body: { items: items(count) } });
      const create = (stack: Stack, count: number) =>
        call(stack.apiUrl, 'POST', '/v1/settlement-batches', {
          apiKey: tenant.apiKey,
          headers: { 'Idempotency-Key': randomUUID() },
          body: { items: items(count) },
        });
      assert.equal((await dryRun(first, 4)).status, 200);
      assert.equal((await create(second, 4)).status, 202);
      // 8 of 10 items used: three more do not fit, whichever process and whichever route asks.
      assertLimited(await dryRun(second, 3), /too many settlement batch items/);
      assertLimited(await create(first, 3), /too many settlement batch items/);
      const cookie = await dashboardSession(first, tenant.tenantId, 'operator');
      const onPage = await call(second.apiUrl, 'POST', '/auth/settlement-batches?dryRun=true', { cookie, body: { items: items(3) } });
      assertLimited(onPage, /too many settlement batch items/);

      // Another tenant is untouched; a request larger than the whole limit counts as the whole limit, never refused forever.
      const other = await createTenant(first);
      assert.equal((await dryRun(second, 25, other.apiKey)).status, 200);
      assertLimited(await dryRun(first, 1, other.apiKey), /too many settlement batch items/);
    });

    it('limits name lookups and dead-letter replays per tenant', async () => {
      const tenant = await createTenant(first);
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        assert.equal((await call(first.apiUrl, 'POST', '/v1/transfers/lookup', { apiKey: tenant.apiKey, body: DESTINATION })).status, 200);
      }
      assertLimited(
        await call(second.apiUrl, 'POST', '/v1/transfers/lookup', { apiKey: tenant.apiKey, body: DESTINATION }),
        /too many name lookups/,
      );

      const replay = () => call(first.apiUrl, 'POST', `/v1/webhooks/dead-letters/${randomUUID()}/replay`, { apiKey: tenant.apiKey });
      assert.equal((await replay()).status, 404);
      assert.equal((await replay()).status, 404);
      assertLimited(await replay(), /too many replays/);
    });

    it("counts the dashboard's lookups, settlements and replays against the same per-tenant limits as the API's", async () => {
      const tenant = await createTenant(first);
      const cookie = await dashboardSession(first, tenant.tenantId, 'operator');
      const account = await provisionAccount(first, tenant.apiKey);
      await fundAccount(first, account.ID, 1_000_000n);

      const apiLookup = () => call(first.apiUrl, 'POST', '/v1/transfers/lookup', { apiKey: tenant.apiKey, body: DESTINATION });
      const pageLookup = (stack: Stack) => call(stack.apiUrl, 'POST', '/auth/settlements/lookup', { cookie, body: DESTINATION });
      assert.equal((await apiLookup()).status, 200);
      assert.equal((await pageLookup(first)).status, 200);
      assert.equal((await apiLookup()).status, 200);
      assertLimited(await pageLookup(second), /too many name lookups/);
      assertLimited(await apiLookup(), /too many name lookups/);

      const apiSettle = () =>
        call(first.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
          apiKey: tenant.apiKey,
          body: { amount: '1.00', ...DESTINATION },
        });
      const pageSettle = () =>
        call(second.apiUrl, 'POST', `/auth/accounts/${account.AccountRef}/settle`, {
          cookie,
          headers: { 'Idempotency-Key': randomUUID() },
          body: { amount: '1.00', ...DESTINATION, confirmedAccountName: accountHolderName(DESTINATION.accountNumber) },
        });
      for (let pair = 0; pair < 3; pair += 1) {
        assert.equal((await apiSettle()).status, 202);
        assert.equal((await pageSettle()).status, 202);
      }
      assertLimited(await pageSettle(), /too many settlements/);
      assertLimited(await apiSettle(), /too many settlements/);

      const pageReplay = () => call(first.apiUrl, 'POST', `/auth/webhooks/deliveries/${randomUUID()}/replay`, { cookie });
      assert.equal((await pageReplay()).status, 404);
      assert.equal(
        (await call(second.apiUrl, 'POST', `/v1/webhooks/dead-letters/${randomUUID()}/replay`, { apiKey: tenant.apiKey })).status,
        404,
      );
      assertLimited(await pageReplay(), /too many replays/);
      // A replay of several answers each id on its own: over the limit, each says so.
      const many = await call(first.apiUrl, 'POST', '/auth/webhooks/replay', { cookie, body: { ids: [randomUUID(), randomUUID()] } });
      assert.equal(many.status, 200);
      assert.deepEqual(
        many.body.results.map((result: { error: string }) => result.error),
        ['too many replays, retry later', 'too many replays, retry later'],
      );
    });
  });

  describe('provisioning, exports, the overview and unsigned webhooks', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack({
        RATE_LIMIT_ACCOUNT_PROVISIONING: '2/1m',
        RATE_LIMIT_EXPORTS: '2/1m',
        RATE_LIMIT_OVERVIEW: '2/1m',
        RATE_LIMIT_UNSIGNED_WEBHOOKS: '3/1m',
      });
    });
    after(() => stack.close());

    it('limits account provisioning per tenant, leaving other tenants alone', async () => {
      const tenant = await createTenant(stack);
      const provision = (apiKey: string) =>
        call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey, body: { externalRef: `cust-${randomUUID()}`, name: 'Ada Obi' } });
      assert.equal((await provision(tenant.apiKey)).status, 201);
      assert.equal((await provision(tenant.apiKey)).status, 201);
      assertLimited(await provision(tenant.apiKey), /too many accounts provisioned/);
      assert.equal((await provision((await createTenant(stack)).apiKey)).status, 201);
    });

    it("limits a tenant's CSV exports and overview requests", async () => {
      const tenant = await createTenant(stack);
      const account = await provisionAccount(stack, tenant.apiKey);
      const cookie = await dashboardSession(stack, tenant.tenantId, 'viewer');
      const exportCsv = () => call(stack.apiUrl, 'GET', `/auth/accounts/${account.AccountRef}/statement.csv`, { cookie });
      assert.equal((await exportCsv()).status, 200);
      assert.equal((await exportCsv()).status, 200);
      assertLimited(await exportCsv(), /too many exports/);
      const overview = () => call(stack.apiUrl, 'GET', '/auth/overview', { cookie });
      assert.equal((await overview()).status, 200);
      assert.equal((await overview()).status, 200);
      assertLimited(await overview(), /too many overview requests/);
    });

    it("limits webhooks failing verification per source address, never the provider's signed ones", async () => {
      const forged = (index: number) =>
        sendProviderEvent(stack, paymentEvent({ accountRef: 'va_nobody_000000000000', requestId: `junk-${randomUUID()}-${index}` }), {
          forged: true,
        });
      for (let index = 0; index < 3; index += 1) assert.equal((await forged(index)).status, 200);
      assertLimited(await forged(3), /bad signature from this address/);
      const signed = await sendProviderEvent(stack, paymentEvent({ accountRef: 'va_nobody_000000000000' }));
      assert.equal(signed.status, 200, signed.text);
    });
  });
});
