import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { requiredPermission } from '../../../src/http/route';
import { createRoutes } from '../../../src/main/container';
import { fundAccount, provisionAccount, sendProviderEvent, paymentEvent } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { dashboardUser, signIn, type DashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { roleHas, USER_ROLES } from '../../../src/http/roles';
import { accountHolderName } from '../../../src/sandbox/names';
import { unverifiedNin } from '../../helpers/sandbox-values';
import { reservedOf } from '../../helpers/reserved';

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };
/** The sandbox provider's name for DESTINATION, as a name lookup shows it to the operator. */
const DESTINATION_NAME = accountHolderName(DESTINATION.accountNumber);

describe('dashboard API (/auth session routes)', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let admin: DashboardUser;
  let operator: DashboardUser;
  let viewer: DashboardUser;
  let approver: DashboardUser;

  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack, 'Dashboard Tenant');
    admin = await dashboardUser(stack, tenant.tenantId, 'admin');
    operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    viewer = await dashboardUser(stack, tenant.tenantId, 'viewer');
    approver = await dashboardUser(stack, tenant.tenantId, 'approver');
  });
  after(() => stack.close());

  const as = (user: DashboardUser | string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(stack.apiUrl, method, path, {
      cookie: typeof user === 'string' ? user : user.cookie,
      headers,
      ...(body !== undefined ? { body } : {}),
    });

  async function auditActions(
    tenantId = tenant.tenantId,
  ): Promise<Array<{ action: string; actor: string; target_id: string | null; detail: Record<string, unknown> }>> {
    return stack.infra.db('audit_log').where({ tenant_id: tenantId }).orderBy('id').select('action', 'actor', 'target_id', 'detail');
  }

  describe('roles', () => {
    it('refuses every session route to each role without the permission it declares (403), before reading the request', async () => {
      const routes = createRoutes(stack.services, stack.config).filter((route) => route.auth === 'session');
      assert.ok(routes.length > 30);
      const users = { viewer, operator, approver, admin };
      let refusals = 0;
      for (const route of routes) {
        const path = route.path.replace(/:\w+/g, randomUUID());
        for (const role of USER_ROLES) {
          if (roleHas(role, requiredPermission(route))) continue;
          const response = await as(users[role], route.method.toUpperCase(), path, route.method === 'get' ? undefined : {});
          assert.equal(response.status, 403, `${role} ${route.method} ${route.path}: ${response.status} ${response.text}`);
          assert.equal(response.body.error, `this needs the ${requiredPermission(route)} permission`);
          refusals += 1;
        }
      }
      assert.ok(refusals >= 30, `only ${refusals} refusals checked`);
    });

    it('lets a viewer read but not act, an operator act but not administer, and keeps the matrix and the fresh-code demands in the OpenAPI document', async () => {
      const customer = (await provisionAccount(stack, tenant.apiKey)).CustomerID;
      assert.equal((await as(viewer, 'GET', '/auth/overview')).status, 200);
      assert.equal((await as(viewer, 'GET', '/auth/audit-log')).status, 200);
      assert.equal((await as(viewer, 'POST', `/auth/customers/${customer}/suspend`)).status, 403);
      assert.equal((await as(operator, 'POST', `/auth/customers/${customer}/suspend`)).status, 200);
      assert.equal((await as(operator, 'POST', '/auth/api-keys', { name: 'ops' })).status, 403);
      assert.equal((await as(operator, 'GET', '/auth/users')).status, 403);
      assert.equal((await as(operator, 'POST', '/auth/webhook-secret', {})).status, 403);
      assert.equal((await as(admin, 'GET', '/auth/users')).status, 200);
      const document = (await call(stack.apiUrl, 'GET', '/openapi.json')).body;
      assert.equal(document.paths['/auth/api-keys'].post['x-required-permission'], 'manage_access');
      assert.equal(document.paths['/auth/customers/{id}/suspend'].post['x-required-permission'], 'operate');
      assert.equal(document.paths['/auth/overview'].get['x-required-permission'], 'read');
      assert.deepEqual(document.paths['/auth/approvals/{merchantTxRef}/approve'].post['x-fresh-code'], {
        withinSeconds: 300,
        askedOf: 'two_factor_users',
      });
      assert.equal(document.paths['/auth/overview'].get['x-fresh-code'], undefined);
    });

    it('applies a role change to the very next request of the user', async () => {
      const promoted = await dashboardUser(stack, tenant.tenantId, 'viewer');
      assert.equal((await as(promoted, 'GET', '/auth/session')).body.user.role, 'viewer');
      const changed = await as(admin, 'PATCH', `/auth/users/${promoted.userId}`, { role: 'operator' });
      assert.equal(changed.status, 200);
      assert.equal(changed.body.Role, 'operator');
      assert.equal((await as(promoted, 'GET', '/auth/session')).body.user.role, 'operator');
      const audit = (await auditActions()).filter((entry) => entry.action === 'user.role_changed' && entry.target_id === promoted.userId);
      assert.deepEqual(
        audit.map((entry) => [entry.actor, entry.detail.from, entry.detail.to]),
        [[admin.email, 'viewer', 'operator']],
      );
    });
  });

  describe('sessions and users', () => {
    it('says who is signed in, for which tenant, with the idle timeout', async () => {
      const session = await as(operator, 'GET', '/auth/session');
      assert.equal(session.status, 200);
      assert.deepEqual(session.body, {
        user: { id: operator.userId, email: operator.email, role: 'operator', permissions: ['read', 'operate', 'move_money'] },
        stage: 'signed_in',
        twoFactorEnrolled: false,
        tenant: { id: tenant.tenantId, name: 'Dashboard Tenant' },
        idleTimeoutSeconds: 1800,
      });
      assert.equal((await call(stack.apiUrl, 'GET', '/auth/session')).status, 401);
    });

    it('ends a session left idle longer than SESSION_IDLE_TIMEOUT, and keeps a used one alive', async () => {
      const idle = await startStack({ SESSION_IDLE_TIMEOUT: '1500ms' });
      try {
        const other = await createTenant(idle);
        const user = await dashboardUser(idle, other.tenantId, 'viewer');
        const kept = await signIn(idle, user.email, user.password);
        for (let step = 0; step < 4; step += 1) {
          await new Promise((resolve) => setTimeout(resolve, 600));
          assert.equal(
            (await call(idle.apiUrl, 'GET', '/auth/session', { cookie: kept })).status,
            200,
            `request ${step} within the idle window`,
          );
        }
        // The first session was not used for 2.4 s: it is over, although SESSION_TTL (12 h) is not.
        const expired = await call(idle.apiUrl, 'GET', '/auth/session', { cookie: user.cookie });
        assert.equal(expired.status, 401);
        assert.equal(expired.body.error, 'authentication required');
      } finally {
        await idle.close();
      }
    });

    it('signs a user out of every session at once', async () => {
      const user = await dashboardUser(stack, tenant.tenantId, 'viewer');
      const second = await signIn(stack, user.email, user.password);
      const ended = await as(user, 'POST', '/auth/sessions/sign-out-all');
      assert.equal(ended.status, 200);
      assert.equal(ended.body.sessionsEnded, 2);
      // This session ended too: the browser is told to drop its cookie, as on sign-out.
      assert.match(ended.headers.get('set-cookie') ?? '', /^session=;.*expires=Thu, 01 Jan 1970.*httponly/i);
      assert.equal((await as(user, 'GET', '/auth/session')).status, 401);
      assert.equal((await as(second, 'GET', '/auth/session')).status, 401);
      assert.ok((await auditActions()).some((entry) => entry.action === 'session.all_signed_out' && entry.target_id === user.userId));
    });

    it('creates a user with a password shown once, disables it (signed out, sign-in refused) and enables it again', async () => {
      const email = `new+${randomUUID()}@example.com`;
      const created = await as(admin, 'POST', '/auth/users', { email: email.toUpperCase(), role: 'operator' });
      assert.equal(created.status, 201);
      assert.equal(created.body.user.Email, email);
      assert.equal(created.body.user.Role, 'operator');
      assert.ok(created.body.password.length >= 20);
      const listed = await as(admin, 'GET', '/auth/users');
      assert.ok(!listed.text.includes(created.body.password), 'the password never appears again');
      const cookie = await signIn(stack, email, created.body.password);
      const disabled = await as(admin, 'POST', `/auth/users/${created.body.user.ID}/disable`);
      assert.equal(disabled.status, 200);
      assert.equal(disabled.body.Disabled, true);
      assert.equal((await as(cookie, 'GET', '/auth/session')).status, 401);
      const refused = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email, password: created.body.password } });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, 'user is disabled');
      const wrong = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email, password: 'not the password at all' } });
      assert.equal(wrong.status, 401, 'a wrong password says nothing about the user being disabled');
      assert.equal((await as(admin, 'POST', `/auth/users/${created.body.user.ID}/enable`)).status, 200);
      assert.equal((await call(stack.apiUrl, 'POST', '/auth/login', { body: { email, password: created.body.password } })).status, 200);
      const actions = (await auditActions()).filter((entry) => entry.target_id === created.body.user.ID).map((entry) => entry.action);
      assert.deepEqual(actions, ['user.created', 'session.signed_in', 'user.disabled', 'user.enabled', 'session.signed_in']);
      assert.equal((await as(admin, 'POST', '/auth/users', { email, role: 'viewer' })).status, 409);
      assert.equal(
        (await as(admin, 'POST', '/auth/users', { email: 'not-an-email', role: 'viewer' })).body.error,
        'email must be an email address',
      );
    });

    it('refuses an admin changing or disabling their own user, and users of other tenants', async () => {
      const self = await as(admin, 'POST', `/auth/users/${admin.userId}/disable`);
      assert.equal(self.status, 409);
      assert.equal(self.body.error, 'you cannot disable your own user');
      assert.equal((await as(admin, 'PATCH', `/auth/users/${admin.userId}`, { role: 'viewer' })).status, 409);
      const other = await createTenant(stack);
      const stranger = await dashboardUser(stack, other.tenantId, 'viewer');
      assert.equal((await as(admin, 'POST', `/auth/users/${stranger.userId}/disable`)).status, 404);
      assert.equal((await as(admin, 'POST', `/auth/users/${stranger.userId}/sign-out`)).status, 404);
      assert.equal((await as(stranger, 'GET', '/auth/session')).status, 200);
      assert.equal((await as(admin, 'POST', '/auth/users/not-a-uuid/disable')).status, 404);
    });
  });

  describe('API keys', () => {
    it('creates a key shown once that works on /v1, lists prefixes only, and revokes it', async () => {
      const created = await as(admin, 'POST', '/auth/api-keys', { name: 'ops', scopes: ['*'] });
      assert.equal(created.status, 201);
      const key: string = created.body.Key;
      assert.ok(key.startsWith(created.body.Prefix));
      assert.equal((await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: key })).status, 200);
      const listed = await as(admin, 'GET', '/auth/api-keys');
      assert.ok(
        listed.body.apiKeys.some(
          (entry: { ID: string; RevokedAt: string | null }) => entry.ID === created.body.ID && entry.RevokedAt === null,
        ),
      );
      assert.ok(!listed.text.includes(key));
      const revoked = await as(admin, 'POST', `/auth/api-keys/${created.body.ID}/revoke`);
      assert.equal(revoked.status, 200);
      assert.ok(revoked.body.RevokedAt);
      assert.equal((await call(stack.apiUrl, 'GET', '/v1/me', { apiKey: key })).status, 401);
      assert.equal((await as(admin, 'POST', `/auth/api-keys/${created.body.ID}/revoke`)).status, 200, 'revoking again changes nothing');
      const actions = (await auditActions())
        .filter((entry) => entry.target_id === created.body.ID)
        .map((entry) => [entry.action, entry.detail.prefix]);
      assert.deepEqual(actions, [
        ['api_key.created', created.body.Prefix],
        ['api_key.revoked', created.body.Prefix],
      ]);
      const other = await createTenant(stack);
      const foreign = await dashboardUser(stack, other.tenantId, 'admin');
      assert.equal((await as(foreign, 'POST', `/auth/api-keys/${created.body.ID}/revoke`)).status, 404);
      assert.ok(!(await as(foreign, 'GET', '/auth/api-keys')).body.apiKeys.some((entry: { ID: string }) => entry.ID === created.body.ID));
    });
  });

  describe('webhook endpoints', () => {
    it('lets an admin add, change, disable, re-enable, rotate and delete an endpoint as on /v1, audited under their name, while other roles only read', async () => {
      const url = 'http://127.0.0.1:9/hooks';
      const catalogue = await as(viewer, 'GET', '/auth/webhook-event-types');
      assert.equal(catalogue.status, 200);
      assert.ok(
        catalogue.body.eventTypes.some(
          (entry: { type: string; description: string }) => entry.type === 'settlement.succeeded' && entry.description.length > 0,
        ),
      );

      const unknown = await as(admin, 'POST', '/auth/webhook-endpoints', { url, eventTypes: ['settlement.paid'] });
      assert.equal(unknown.status, 400);
      assert.match(
        JSON.stringify(unknown.body),
        /settlement\.paid: unknown event type; the known ones are payment\.received, .*settlement\.succeeded/,
      );
      assert.equal((await as(operator, 'POST', '/auth/webhook-endpoints', { url })).status, 403);

      const created = await as(admin, 'POST', '/auth/webhook-endpoints', {
        url,
        description: 'payouts',
        eventTypes: ['settlement.succeeded'],
      });
      assert.equal(created.status, 201, created.text);
      const { ID: id, Secret: secret } = created.body as { ID: string; Secret: string };
      assert.match(secret, /^whsec_/);
      const viaApiKey = await call(stack.apiUrl, 'GET', `/v1/webhook-endpoints/${id}`, { apiKey: tenant.apiKey });
      assert.deepEqual(
        [viaApiKey.body.Description, viaApiKey.body.EventTypes, viaApiKey.body.Enabled],
        ['payouts', ['settlement.succeeded'], true],
      );
      const listed = await as(viewer, 'GET', '/auth/webhook-endpoints');
      assert.equal(listed.status, 200);
      assert.ok(listed.body.endpoints.some((endpoint: { ID: string }) => endpoint.ID === id));
      assert.ok(!listed.text.includes(secret), 'the secret is never listed');

      assert.equal((await as(operator, 'PATCH', `/auth/webhook-endpoints/${id}`, { enabled: false })).status, 403);
      assert.equal((await as(admin, 'PATCH', `/auth/webhook-endpoints/${id}`, {})).status, 400);
      const disabled = await as(admin, 'PATCH', `/auth/webhook-endpoints/${id}`, { enabled: false, eventTypes: ['*'] });
      assert.deepEqual([disabled.status, disabled.body.Enabled, disabled.body.EventTypes], [200, false, ['*']]);
      assert.equal((await as(admin, 'PATCH', `/auth/webhook-endpoints/${id}`, { enabled: true })).body.Enabled, true);
      const rotated = await as(admin, 'POST', `/auth/webhook-endpoints/${id}/rotate-secret`);
      assert.equal(rotated.status, 200);
      assert.match(rotated.body.Secret, /^whsec_/);
      assert.notEqual(rotated.body.Secret, secret);
      assert.ok(rotated.body.SecretRotatedUntil);

      const foreign = await dashboardUser(stack, (await createTenant(stack)).tenantId, 'admin');
      assert.equal((await as(foreign, 'PATCH', `/auth/webhook-endpoints/${id}`, { enabled: false })).status, 404);
      assert.ok(
        !(await as(foreign, 'GET', '/auth/webhook-endpoints')).body.endpoints.some((endpoint: { ID: string }) => endpoint.ID === id),
      );

      assert.equal((await as(viewer, 'DELETE', `/auth/webhook-endpoints/${id}`)).status, 403);
      assert.equal((await as(admin, 'DELETE', `/auth/webhook-endpoints/${id}`)).status, 204);
      assert.equal((await as(admin, 'DELETE', `/auth/webhook-endpoints/${id}`)).status, 404);
      assert.ok(!(await as(admin, 'GET', '/auth/webhook-endpoints')).body.endpoints.some((endpoint: { ID: string }) => endpoint.ID === id));

      const audited = await stack.infra
        .db('audit_log')
        .where({ tenant_id: tenant.tenantId, target_id: id })
        .orderBy('id')
        .select('action', 'actor', 'user_id');
      assert.deepEqual(audited, [
        { action: 'webhook_endpoint.created', actor: admin.email, user_id: admin.userId },
        { action: 'webhook_endpoint.updated', actor: admin.email, user_id: admin.userId },
        { action: 'webhook_endpoint.enabled', actor: admin.email, user_id: admin.userId },
        { action: 'webhook_endpoint.secret_rotated', actor: admin.email, user_id: admin.userId },
        { action: 'webhook_endpoint.deleted', actor: admin.email, user_id: admin.userId },
      ]);
    });
  });

  describe('reads', () => {
    it('finds accounts by AccountRef, account number, externalRef and any part of the name, only in the tenant', async () => {
      const externalRef = `search-${randomUUID()}`;
      const account = await provisionAccount(stack, tenant.apiKey, { externalRef, name: 'Chiamaka Search_Test Obi' });
      const other = await createTenant(stack);
      await provisionAccount(stack, other.apiKey, { externalRef, name: 'Chiamaka Search_Test Obi' });
      const search = async (q: string) =>
        (await as(viewer, 'GET', `/auth/accounts?q=${encodeURIComponent(q)}`)).body.accounts.map(
          (hit: { AccountRef: string }) => hit.AccountRef,
        );
      for (const q of [account.AccountRef, account.BankAccountNumber, externalRef, 'search_test', 'CHIAMAKA SEARCH'])
        assert.deepEqual(await search(q), [account.AccountRef], q);
      assert.deepEqual(await search('search%test'), [], 'LIKE wildcards are literal');
      const hit = (await as(viewer, 'GET', `/auth/accounts?q=${account.AccountRef}`)).body.accounts[0];
      assert.equal(hit.CustomerName, 'Chiamaka Search_Test Obi');
      assert.deepEqual(hit.balances, {
        ledgerBalance: '0.00',
        availableBalance: '0.00',
        pendingCredits: '0.00',
        heldBalance: '0.00',
        reserved: reservedOf(),
        settleable: '0.00',
        settlesFrom: 'ledger',
        transferable: '0.00',
      });
    });

    it('pages a statement and streams a period as CSV (more than one export page), with formulas neutralised', async () => {
      const account = await provisionAccount(stack, tenant.apiKey);
      const entries = 620;
      await stack.infra.db.transaction(async (trx) => {
        for (let index = 0; index < entries; index += 1) {
          await stack.services.postingEngine.post(trx, account.ID, [
            {
              direction: 'credit',
              kind: 'payment',
              amount: 100n,
              status: 'confirmed',
              narration: index === 0 ? '=HYPERLINK("x")' : `pay ${index}`,
              providerTxnRef: `csv-${randomUUID()}`,
              transactionGroupId: randomUUID(),
            },
          ]);
        }
      });
      const page = await as(viewer, 'GET', `/auth/accounts/${account.AccountRef}/statement?limit=100`);
      assert.equal(page.status, 200);
      assert.equal(page.body.lines.length, 100);
      assert.equal(page.body.closingBalance, '620.00');
      const next = await as(
        viewer,
        'GET',
        `/auth/accounts/${account.AccountRef}/statement?limit=100&after=${page.body.pagination.nextCursor}`,
      );
      assert.equal(next.body.lines[0].runningBalance, '101.00');

      const response = await fetch(`${stack.apiUrl}/auth/accounts/${account.AccountRef}/statement.csv`, {
        headers: { Cookie: viewer.cookie },
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/csv/);
      assert.match(
        response.headers.get('content-disposition') ?? '',
        new RegExp(`attachment; filename="statement-${account.AccountRef}-start-to-\\d{4}-\\d{2}-\\d{2}\\.csv"`),
      );
      const lines = (await response.text()).trimEnd().split('\r\n');
      assert.equal(lines.length, entries + 1);
      assert.match(lines[0]!, /^Date,Entry ID,Kind,Direction,Status,Amount,Fee,Running balance,Narration/);
      assert.match(lines[1]!, /,payment,credit,confirmed,1\.00,0\.00,1\.00,"'=HYPERLINK\(""x""\)",/);
      // An ordinary account's payment: no entry reversed, no other account, and the four judgement cells empty.
      assert.match(lines[0]!, /,Counterpart account,Expected amount,Amount received,Variance,Mismatch action$/);
      assert.match(lines[1]!, /,[0-9a-f-]{36},,,,,,$/);
      assert.match(lines[entries]!, /,1\.00,0\.00,620\.00,"pay 619",/);

      // A page that cannot be read once the 200 is out cuts the download: never a clean file missing its end.
      const statements = stack.services.statements;
      const readPage = statements.statement;
      statements.statement = (tenantId, accountRef, options) =>
        options?.after ? Promise.reject(new Error('database went away mid-export')) : readPage(tenantId, accountRef, options);
      try {
        const broken = await fetch(`${stack.apiUrl}/auth/accounts/${account.AccountRef}/statement.csv`, {
          headers: { Cookie: viewer.cookie },
          signal: AbortSignal.timeout(10_000),
        });
        assert.equal(broken.status, 200, 'the first page was read before the status went out');
        await assert.rejects(
          broken.text(),
          (error: Error) => error.name !== 'TimeoutError',
          'the transfer breaks at once, it does not hang',
        );
      } finally {
        statements.statement = readPage;
      }

      const empty = await fetch(`${stack.apiUrl}/auth/accounts/${account.AccountRef}/statement.csv?to=2000-01-01T00:00:00Z`, {
        headers: { Cookie: viewer.cookie },
      });
      assert.equal((await empty.text()).trimEnd().split('\r\n').length, 1, 'a period with nothing in it is the header alone');
      const unknown = await as(viewer, 'GET', '/auth/accounts/va_nope/statement.csv');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error, 'account not found');
      const badPeriod = await as(
        viewer,
        'GET',
        `/auth/accounts/${account.AccountRef}/statement.csv?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`,
      );
      assert.equal(badPeriod.status, 400);
    });

    it('shows balances, 30 days of flows and what needs attention on the overview', async () => {
      const fresh = await createTenant(stack);
      const user = await dashboardUser(stack, fresh.tenantId, 'viewer');
      const empty = (await as(user, 'GET', '/auth/overview')).body;
      assert.deepEqual(empty.balances, { accounts: 0, ledgerBalance: '0.00', availableBalance: '0.00', pendingCredits: '0.00' });
      assert.equal(empty.flows.days.length, 30);
      assert.deepEqual(empty.attention, {
        kycReviews: 0,
        misdirectedPayments: 0,
        deadLetters: 0,
        failedSettlements: 0,
        accountsInDeficit: 0,
        reconciliationExceptions: 0,
      });

      const account = await provisionAccount(stack, fresh.apiKey);
      await fundAccount(stack, account.ID, 500_000n);
      await fundAccount(stack, account.ID, 20_000n, 'provisional');
      const settled = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
        apiKey: fresh.apiKey,
        body: { amount: '1000.00', ...DESTINATION },
      });
      assert.equal(settled.status, 202);
      const { body } = await as(user, 'GET', '/auth/overview');
      assert.deepEqual(body.balances, { accounts: 1, ledgerBalance: '4200.00', availableBalance: '4000.00', pendingCredits: '200.00' });
      assert.deepEqual(body.flows.today, { day: body.flows.days.at(-1).day, inflow: '5200.00', outflow: '1000.00' });
      assert.deepEqual(body.flows.last30Days, { inflow: '5200.00', outflow: '1000.00' });
      // SETTLEMENT_FUNDS=ledger (the default): the provisional 200.00 can be settled too, but never transferred.
      const page = (await as(user, 'GET', `/auth/accounts/${account.AccountRef}`)).body;
      assert.deepEqual([page.balances.settleable, page.balances.settlesFrom, page.balances.transferable], ['4200.00', 'ledger', '4000.00']);
    });

    it('flags an account a reversal left below zero: on its page, in the deficit list and as a count on the overview, settling nothing', async () => {
      const fresh = await createTenant(stack);
      const user = await dashboardUser(stack, fresh.tenantId, 'operator');
      const account = await provisionAccount(stack, fresh.apiKey);
      const healthy = await provisionAccount(stack, fresh.apiKey);
      await fundAccount(stack, healthy.ID, 10_000n);
      const credit = await fundAccount(stack, account.ID, 50_000n, 'provisional');
      const spent = await as(
        user,
        'POST',
        `/auth/accounts/${account.AccountRef}/settle`,
        { amount: '300.00', ...DESTINATION, confirmedAccountName: DESTINATION_NAME },
        { 'Idempotency-Key': randomUUID() },
      );
      assert.equal(spent.status, 202, spent.text);
      await stack.infra.db.transaction((trx) => stack.services.postingEngine.reverse(trx, credit.id, 'provider did not confirm'));

      const page = (await as(user, 'GET', `/auth/accounts/${account.AccountRef}`)).body;
      assert.equal(page.InDeficit, true);
      assert.ok(page.DeficitSince);
      assert.deepEqual([page.balances.ledgerBalance, page.balances.settleable], ['-300.00', '0.00']);
      const listed = (await as(user, 'GET', '/auth/deficit-accounts')).body.accounts;
      assert.deepEqual(
        listed.map((row: { AccountRef: string; LedgerBalance: string }) => [row.AccountRef, row.LedgerBalance]),
        [[account.AccountRef, '-300.00']],
      );
      assert.equal((await as(user, 'GET', '/auth/overview')).body.attention.accountsInDeficit, 1);
      const refused = await as(
        user,
        'POST',
        `/auth/accounts/${account.AccountRef}/settle`,
        { amount: '1.00', ...DESTINATION, confirmedAccountName: DESTINATION_NAME },
        { 'Idempotency-Key': randomUUID() },
      );
      assert.deepEqual([refused.status, refused.body.error], [400, 'insufficient funds']);

      await fundAccount(stack, account.ID, 40_000n);
      assert.equal((await as(user, 'GET', `/auth/accounts/${account.AccountRef}`)).body.InDeficit, false);
      assert.equal((await as(user, 'GET', '/auth/overview')).body.attention.accountsInDeficit, 0);
    });

    it('keeps every status a settlement passes through, whoever writes it', async () => {
      const account = await provisionAccount(stack, tenant.apiKey);
      await fundAccount(stack, account.ID, 100_000n);
      const key = `dash-${randomUUID()}`;
      const body = { amount: '100.00', ...DESTINATION, confirmedAccountName: DESTINATION_NAME };
      const accepted = await as(operator, 'POST', `/auth/accounts/${account.AccountRef}/settle`, body, { 'Idempotency-Key': key });
      assert.equal(accepted.status, 202);
      const again = await as(operator, 'POST', `/auth/accounts/${account.AccountRef}/settle`, body, { 'Idempotency-Key': key });
      assert.equal(again.body.merchantTxRef, accepted.body.merchantTxRef, 'the page retrying with its key makes no second settlement');
      const ref = accepted.body.merchantTxRef;
      const detail = await as(viewer, 'GET', `/auth/settlements/${ref}`);
      assert.equal(detail.status, 200);
      assert.deepEqual(
        detail.body.statusHistory.map((change: { status: string }) => change.status),
        ['pending'],
      );
      assert.equal(detail.body.workflow.workflowId, `settlement:${ref}`);
      // The Temporal UI shows every tenant's workflows: the platform operator's, never linked for a tenant.
      assert.deepEqual(detail.body.workflow, { workflowId: `settlement:${ref}` });
      assert.ok(!detail.text.includes(stack.config.TEMPORAL_UI_URL), 'no link into the Temporal UI');
      // Any writer of a status (the workflow's activities here) leaves its trace; rolled back, so the
      // ledger stays consistent for the layers after this one.
      const traced = await stack.infra.db
        .transaction(async (trx) => {
          await trx('settlements').where({ merchant_tx_ref: ref }).update({ status: 'processing' });
          await trx('settlements').where({ merchant_tx_ref: ref }).update({ attempt_count: 1 });
          await trx('settlements').where({ merchant_tx_ref: ref }).update({ status: 'success' });
          const history = await trx('settlement_status_history')
            .join('settlements', 'settlements.id', 'settlement_status_history.settlement_id')
            .where('settlements.merchant_tx_ref', ref)
            .orderBy('settlement_status_history.id')
            .pluck('settlement_status_history.status');
          throw Object.assign(new Error('roll back'), { history });
        })
        .catch((error: { history?: string[] }) => error.history);
      assert.deepEqual(traced, ['pending', 'processing', 'success']);
      const listed = await as(viewer, 'GET', '/auth/settlements?status=pending');
      assert.ok(listed.body.settlements.some((row: { MerchantTxRef: string }) => row.MerchantTxRef === ref));
      assert.ok(
        !(await as(viewer, 'GET', '/auth/settlements?status=success')).body.settlements.some(
          (row: { MerchantTxRef: string }) => row.MerchantTxRef === ref,
        ),
      );
      const audited = (await auditActions()).filter((entry) => entry.action === 'settlement.initiated' && entry.target_id === ref);
      assert.equal(audited[0]?.actor, operator.email);
      assert.equal(audited[0]?.detail.confirmedAccountName, DESTINATION_NAME);
      const unconfirmed = await as(
        operator,
        'POST',
        `/auth/accounts/${account.AccountRef}/settle`,
        { amount: '1.00', ...DESTINATION },
        { 'Idempotency-Key': `dash-${randomUUID()}` },
      );
      assert.equal(unconfirmed.status, 400);
    });
  });

  describe('audit log', () => {
    it('records KYC decisions, suspensions, misdirected assignments, webhook secrets and sign-ins with who and when, newest first', async () => {
      const account = await provisionAccount(stack, tenant.apiKey);
      const kyc = await call(stack.apiUrl, 'POST', `/v1/customers/${account.CustomerID}/kyc`, {
        apiKey: tenant.apiKey,
        body: { nin: unverifiedNin('123456789') },
      });
      assert.equal(kyc.body.KYCStatus, 'pending_review');
      assert.equal((await as(operator, 'POST', `/auth/customers/${account.CustomerID}/kyc/approve`)).status, 200);
      assert.equal((await as(operator, 'POST', `/auth/customers/${account.CustomerID}/suspend`)).status, 200);
      assert.equal((await as(operator, 'POST', `/auth/customers/${account.CustomerID}/suspend`)).status, 200);
      const prefix = (await stack.services.auth.findTenant(tenant.tenantId)).ref_prefix;
      const payment = await sendProviderEvent(stack, paymentEvent({ accountRef: `va_${prefix}_${'x'.repeat(12)}`, amount: 1025, fee: 25 }));
      assert.equal(payment.status, 200);
      const misdirected = (await as(viewer, 'GET', '/auth/misdirected-payments')).body.misdirectedPayments[0];
      assert.equal(
        (await as(operator, 'POST', `/auth/misdirected-payments/${misdirected.ID}/assign`, { accountRef: account.AccountRef })).status,
        201,
      );
      assert.equal((await as(admin, 'POST', '/auth/webhook-secret', {})).status, 200);

      const log = await as(viewer, 'GET', '/auth/audit-log');
      assert.equal(log.status, 200);
      const recent = log.body.entries
        .slice(0, 4)
        .map((entry: { Action: string; Actor: string; TargetID: string }) => [entry.Action, entry.Actor, entry.TargetID]);
      assert.deepEqual(recent, [
        ['webhook_secret.set', admin.email, tenant.tenantId],
        ['misdirected.assigned', operator.email, misdirected.ID],
        ['customer.suspended', operator.email, account.CustomerID],
        ['kyc.approved', operator.email, account.CustomerID],
      ]);
      assert.ok(log.body.entries.every((entry: { At: string }) => !Number.isNaN(Date.parse(entry.At))));
      const customer = await as(viewer, 'GET', `/auth/customers/${account.CustomerID}`);
      assert.deepEqual(
        customer.body.history.map((entry: { Action: string }) => entry.Action),
        ['customer.suspended', 'kyc.approved'],
        'a repeated suspension changes nothing and is not recorded again',
      );
      const filtered = await as(viewer, 'GET', '/auth/audit-log?action=kyc.approved');
      assert.ok(filtered.body.entries.every((entry: { Action: string }) => entry.Action === 'kyc.approved'));
      await assert.rejects(stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId }).delete(), /audit_log is append-only/);
      await assert.rejects(
        stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId }).update({ actor: 'someone else' }),
        /audit_log is append-only/,
      );
    });
  });

  describe('tenant isolation', () => {
    it("answers another tenant's accounts, statements, customers, settlements and deliveries as not found", async () => {
      const account = await provisionAccount(stack, tenant.apiKey);
      await fundAccount(stack, account.ID, 100_000n);
      const settled = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
        apiKey: tenant.apiKey,
        body: { amount: '10.00', ...DESTINATION },
      });
      const other = await createTenant(stack);
      const stranger = await dashboardUser(stack, other.tenantId, 'admin');
      for (const path of [
        `/auth/accounts/${account.AccountRef}`,
        `/auth/accounts/${account.AccountRef}/statement`,
        `/auth/accounts/${account.AccountRef}/statement.csv`,
        `/auth/customers/${account.CustomerID}`,
        `/auth/settlements/${settled.body.merchantTxRef}`,
      ]) {
        const response = await as(stranger, 'GET', path);
        assert.equal(response.status, 404, path);
      }
      assert.deepEqual((await as(stranger, 'GET', `/auth/accounts?q=${account.AccountRef}`)).body.accounts, []);
      assert.equal(
        (
          await as(stranger, 'POST', `/auth/accounts/${account.AccountRef}/settle`, {
            amount: '1.00',
            ...DESTINATION,
            confirmedAccountName: 'X',
          })
        ).status,
        404,
      );
      assert.equal((await as(stranger, 'POST', `/auth/customers/${account.CustomerID}/suspend`)).status, 404);
    });
  });

  describe('the web app', () => {
    it("puts the pages' Content-Security-Policy and Cache-Control: no-store on every /auth answer, errors included", async () => {
      const answers = {
        session: await as(viewer, 'GET', '/auth/session'),
        overview: await as(viewer, 'GET', '/auth/overview'),
        'no session': await call(stack.apiUrl, 'GET', '/auth/overview'),
        'role refused': await as(viewer, 'GET', '/auth/users'),
        'bad query': await as(viewer, 'GET', '/auth/settlements?status=nonsense'),
        'not found': await as(viewer, 'GET', '/auth/accounts/va_nothing_000000000000'),
        'failed sign-in': await call(stack.apiUrl, 'POST', '/auth/login', {
          body: { email: 'nobody@example.com', password: 'not the password' },
        }),
        'csv export': await as(viewer, 'GET', '/auth/accounts/va_nothing_000000000000/statement.csv'),
      };
      for (const [what, response] of Object.entries(answers)) {
        assert.equal(response.headers.get('cache-control'), 'no-store', `${what}: ${response.status}`);
        assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'.*frame-ancestors 'none'/, what);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff', what);
      }
      assert.deepEqual(
        Object.values(answers).map((response) => response.status),
        [200, 200, 401, 403, 400, 404, 401, 404],
      );
    });

    it('serves /dashboard and its pages to anyone (the app shows sign-in), with a strict Content-Security-Policy on every response', async () => {
      for (const path of ['/dashboard', '/dashboard/', '/dashboard/accounts/va_x', '/dashboard/settlements?status=failed']) {
        const response = await fetch(`${stack.apiUrl}${path}`);
        assert.equal(response.status, 200, path);
        assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
        const csp = response.headers.get('content-security-policy') ?? '';
        assert.match(csp, /script-src 'self'(;|$)/);
        assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
        assert.match(csp, /frame-ancestors 'none'/);
        assert.equal(response.headers.get('cache-control'), 'no-store');
        const html = await response.text();
        assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
        assert.doesNotMatch(html, /https?:\/\//, 'nothing from another host');
      }
      const html = await (await fetch(`${stack.apiUrl}/dashboard`)).text();
      const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/[^"]+)"/g)].map((match) => match[1]!);
      assert.ok(assets.some((asset) => asset.endsWith('.js')) && assets.some((asset) => asset.endsWith('.css')));
      for (const asset of assets) {
        const response = await fetch(`${stack.apiUrl}${asset}`);
        assert.equal(response.status, 200, asset);
        assert.ok(response.headers.get('content-security-policy'), asset);
        if (asset.includes('/assets/')) assert.match(response.headers.get('cache-control') ?? '', /immutable/);
        const text = await response.text();
        assert.doesNotMatch(
          text.replace(/https?:\/\/(www\.w3\.org|github\.com|preactjs\.com|leeoniya)[^\s"'`)]*/g, ''),
          /\b(src|href)=["']https?:\/\//,
          `${asset} loads nothing from another host`,
        );
      }
      const missing = await fetch(`${stack.apiUrl}/dashboard/assets/nope.js`);
      assert.equal(missing.status, 404);
      assert.equal((await fetch(`${stack.apiUrl}/dashboard/../openapi.json`)).status, 200, 'URL normalisation, not the file system');
      const redirect = await fetch(`${stack.apiUrl}/`, { redirect: 'manual' });
      assert.equal(redirect.status, 302);
      assert.equal(redirect.headers.get('location'), '/dashboard');
    });
  });
});
