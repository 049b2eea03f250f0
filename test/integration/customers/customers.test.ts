import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCustomersRepo } from '../../../src/customers/customers.repo';
import { createIdentityClient } from '../../../src/customers/identity-client';
import { uuidv7 } from '../../../src/ids';
import { createLogger } from '../../../src/logger';
import { provisionAccount, statement } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { unavailableNin, unverifiedNin } from '../../helpers/sandbox-values';

const CUSTOMER_FIELDS = [
  'BVNLast4',
  'CreatedAt',
  'ExternalRef',
  'ID',
  'KYCStatus',
  'KYCTier',
  'NINLast4',
  'Name',
  'Status',
  'TenantID',
  'UpdatedAt',
];
const VERIFIED_NIN = '12345678901';
const UNAVAILABLE_NIN = unavailableNin('12345678');
const NOT_VERIFIED_NIN = unverifiedNin('123456789');

describe('customers and KYC', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let operator: string;
  let other: TestTenant;
  let otherOperator: string;

  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    other = await createTenant(stack);
    operator = await dashboardSession(stack, tenant.tenantId);
    otherOperator = await dashboardSession(stack, other.tenantId);
  });
  after(() => stack.close());

  const api = (method: string, path: string, body?: unknown, apiKey = tenant.apiKey) =>
    call(stack.apiUrl, method, path, { apiKey, ...(body !== undefined ? { body } : {}) });
  const ops = (path: string, cookie = operator) => call(stack.apiUrl, 'POST', path, { cookie });

  async function newCustomer(body: Record<string, unknown> = {}, apiKey = tenant.apiKey): Promise<{ id: string; accountRef: string }> {
    const account = await provisionAccount(stack, apiKey, body);
    return { id: account.CustomerID, accountRef: account.AccountRef };
  }

  async function auditOf(
    customerId: string,
  ): Promise<Array<{ action: string; user_id: string | null; detail: Record<string, unknown>; created_at: Date }>> {
    return stack.infra
      .db('customer_audit')
      .where({ customer_id: customerId })
      .orderBy('created_at')
      .orderBy('id')
      .select('action', 'user_id', 'detail', 'created_at');
  }

  async function userIdOf(cookie: string): Promise<string> {
    const token = cookie.replace(/^session=/, '');
    const session = await stack.services.auth.authenticator.userForSession(token);
    return session!.id;
  }

  describe('reading and renaming', () => {
    it("lists the tenant's customers 20 a page with the pagination object, oldest first", async () => {
      const fresh = await createTenant(stack);
      const ids: string[] = [];
      for (let index = 0; index < 22; index += 1) ids.push((await newCustomer({ externalRef: `page-${index}` }, fresh.apiKey)).id);
      await newCustomer({}, other.apiKey);
      const first = await api('GET', '/v1/customers', undefined, fresh.apiKey);
      assert.equal(first.status, 200);
      assert.equal(first.body.customers.length, 20);
      // Ids are UUIDv7, so id order is creation order (to the millisecond).
      const ordered = [...ids].sort();
      assert.deepEqual(first.body.pagination, { limit: 20, nextCursor: ordered[19], hasMore: true });
      const second = await api('GET', `/v1/customers?after=${first.body.pagination.nextCursor}`, undefined, fresh.apiKey);
      assert.deepEqual(second.body.pagination, { limit: 20, nextCursor: null, hasMore: false });
      assert.deepEqual(
        [...first.body.customers, ...second.body.customers].map((customer: { ID: string }) => customer.ID),
        ordered,
      );
      const bad = await api('GET', '/v1/customers?after=nope', undefined, fresh.apiKey);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error, 'invalid cursor');
    });

    it("answers a customer with exactly SPEC.md's fields: BVNLast4 from provisioning, NINLast4 null, tier 1 none, active", async () => {
      const withBvn = await newCustomer({ externalRef: `bvn-${randomUUID()}`, name: 'Chidi Okafor', bvn: '22212345678' });
      const response = await api('GET', `/v1/customers/${withBvn.id}`);
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body).sort(), CUSTOMER_FIELDS);
      assert.equal(response.body.TenantID, tenant.tenantId);
      assert.equal(response.body.Name, 'Chidi Okafor');
      assert.deepEqual(
        [response.body.BVNLast4, response.body.NINLast4, response.body.KYCTier, response.body.KYCStatus, response.body.Status],
        ['5678', null, 1, 'none', 'active'],
      );
      assert.ok(!response.text.includes('22212345678'));
      const withoutBvn = await newCustomer();
      assert.equal((await api('GET', `/v1/customers/${withoutBvn.id}`)).body.BVNLast4, null);
    });

    it('answers 404 "customer not found" for an unknown, another tenant\'s or malformed id', async () => {
      const theirs = await newCustomer({}, other.apiKey);
      for (const id of [randomUUID(), theirs.id, 'not-a-uuid', '1', 'x'.repeat(500), "'; drop table customers; --"]) {
        for (const [method, path, body] of [
          ['GET', `/v1/customers/${encodeURIComponent(id)}`, undefined],
          ['PATCH', `/v1/customers/${encodeURIComponent(id)}`, { name: 'X' }],
          ['GET', `/v1/customers/${encodeURIComponent(id)}/account`, undefined],
          ['POST', `/v1/customers/${encodeURIComponent(id)}/kyc`, { nin: VERIFIED_NIN }],
        ] as const) {
          const response = await api(method, path, body);
          assert.equal(response.status, 404, `${method} ${path}`);
          assert.deepEqual({ error: response.body.error, code: response.body.code }, { error: 'customer not found', code: 'not_found' });
        }
      }
      assert.equal((await api('GET', `/v1/customers/${theirs.id}`, undefined, other.apiKey)).status, 200);
    });

    it('renames a customer (trimmed, 1 to 100 characters)', async () => {
      const customer = await newCustomer({ name: 'Old Name' });
      const before = (await api('GET', `/v1/customers/${customer.id}`)).body;
      const renamed = await api('PATCH', `/v1/customers/${customer.id}`, { name: '  Ngozi Eze  ' });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.Name, 'Ngozi Eze');
      assert.ok(renamed.body.UpdatedAt >= before.UpdatedAt);
      assert.equal((await api('GET', `/v1/customers/${customer.id}`)).body.Name, 'Ngozi Eze');
      assert.equal((await api('PATCH', `/v1/customers/${customer.id}`, { name: 'x'.repeat(100) })).status, 200);
      for (const body of [{ name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 42 }, {}]) {
        const response = await api('PATCH', `/v1/customers/${customer.id}`, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(response.body.error, 'name must be 1 to 100 characters');
      }
    });

    it('answers the customer\'s account, or 404 "no account linked to this customer"', async () => {
      const customer = await newCustomer();
      const response = await api('GET', `/v1/customers/${customer.id}/account`);
      assert.equal(response.status, 200);
      assert.equal(response.body.AccountRef, customer.accountRef);
      assert.equal(response.body.CustomerID, customer.id);
      assert.equal((await statement(stack, tenant.apiKey, response.body.AccountRef)).status, 200);
      const lonely = await createCustomersRepo(stack.infra.db).upsertByExternalRef({
        id: uuidv7(),
        tenantId: tenant.tenantId,
        externalRef: `lonely-${randomUUID()}`,
        name: 'No Account',
      });
      const missing = await api('GET', `/v1/customers/${lonely.id}/account`);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error, 'no account linked to this customer');
    });
  });

  describe('KYC submission', () => {
    it('refuses a NIN that is not exactly 11 digits with 400 "nin must be exactly 11 digits"', async () => {
      const customer = await newCustomer();
      for (const body of [
        { nin: '1234567890' },
        { nin: '123456789012' },
        { nin: '1234567890a' },
        { nin: ' 12345678901' },
        { nin: 12345678901 },
        {},
        { nin: null },
      ]) {
        const response = await api('POST', `/v1/customers/${customer.id}/kyc`, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(response.body.error, 'nin must be exactly 11 digits');
      }
      assert.equal((await api('GET', `/v1/customers/${customer.id}`)).body.KYCStatus, 'none');
    });

    it('promotes a verified NIN to tier 2 approved at once; a second submission is refused', async () => {
      const customer = await newCustomer();
      const response = await api('POST', `/v1/customers/${customer.id}/kyc`, { nin: VERIFIED_NIN });
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { ID: customer.id, KYCTier: 2, KYCStatus: 'approved', NINLast4: '8901' });
      const read = await api('GET', `/v1/customers/${customer.id}`);
      assert.deepEqual([read.body.KYCTier, read.body.KYCStatus, read.body.NINLast4], [2, 'approved', '8901']);
      assert.ok(!read.text.includes(VERIFIED_NIN));
      const again = await api('POST', `/v1/customers/${customer.id}/kyc`, { nin: VERIFIED_NIN });
      assert.equal(again.status, 400);
      assert.equal(again.body.error, 'customer is already at tier 2 or above');
      const stored = await stack.infra.db('customers').where({ id: customer.id }).first('nin_enc', 'kyc_review_reason');
      assert.ok(stored.nin_enc && !stored.nin_enc.includes(VERIFIED_NIN));
      assert.equal(stored.kyc_review_reason, null);
      assert.deepEqual(
        (await auditOf(customer.id)).map((row) => [row.action, row.user_id, row.detail.outcome]),
        [['kyc_submitted', null, 'verified']],
      );
    });

    it('leaves the customer at tier 1 pending_review when the verifier is unavailable; resubmitting is refused', async () => {
      const customer = await newCustomer();
      const response = await api('POST', `/v1/customers/${customer.id}/kyc`, { nin: UNAVAILABLE_NIN });
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { ID: customer.id, KYCTier: 1, KYCStatus: 'pending_review', NINLast4: '5678' });
      const again = await api('POST', `/v1/customers/${customer.id}/kyc`, { nin: VERIFIED_NIN });
      assert.equal(again.status, 400);
      assert.equal(again.body.error, 'kyc submission already pending review');
      const stored = await stack.infra.db('customers').where({ id: customer.id }).first('kyc_review_reason', 'nin_last4');
      assert.match(stored.kyc_review_reason, /^identity verification unavailable \(HTTP 503\)$/);
      assert.equal(stored.nin_last4, '5678');
    });

    it('leaves a definite "not verified" at tier 1 pending_review with the reason recorded for the operator', async () => {
      const customer = await newCustomer();
      const response = await api('POST', `/v1/customers/${customer.id}/kyc`, { nin: NOT_VERIFIED_NIN });
      assert.deepEqual(response.body, { ID: customer.id, KYCTier: 1, KYCStatus: 'pending_review', NINLast4: '8999' });
      const queue = await call(stack.apiUrl, 'GET', '/auth/kyc-reviews', { cookie: operator });
      const review = queue.body.reviews.find((entry: { ID: string }) => entry.ID === customer.id);
      assert.equal(review.KYCReviewReason, 'identity verification found no match for this NIN and name');
      assert.equal(review.KYCStatus, 'pending_review');
    });

    it('applies only one of two concurrent submissions', async () => {
      const customer = await newCustomer();
      const responses = await Promise.all(
        [UNAVAILABLE_NIN, UNAVAILABLE_NIN].map((nin) => api('POST', `/v1/customers/${customer.id}/kyc`, { nin })),
      );
      assert.deepEqual(responses.map((response) => response.status).sort(), [200, 400]);
      assert.equal((await auditOf(customer.id)).length, 1);
    });
  });

  describe('operator decisions', () => {
    async function pendingCustomer(nin = UNAVAILABLE_NIN): Promise<string> {
      const customer = await newCustomer();
      assert.equal((await api('POST', `/v1/customers/${customer.id}/kyc`, { nin })).body.KYCStatus, 'pending_review');
      return customer.id;
    }

    it("lists what awaits a decision for the operator's tenant only, oldest first", async () => {
      const fresh = await createTenant(stack);
      const freshOperator = await dashboardSession(stack, fresh.tenantId);
      const first = (await newCustomer({}, fresh.apiKey)).id;
      const second = (await newCustomer({}, fresh.apiKey)).id;
      await newCustomer({}, fresh.apiKey);
      await api('POST', `/v1/customers/${first}/kyc`, { nin: UNAVAILABLE_NIN }, fresh.apiKey);
      await api('POST', `/v1/customers/${second}/kyc`, { nin: NOT_VERIFIED_NIN }, fresh.apiKey);
      await pendingCustomer();
      const queue = await call(stack.apiUrl, 'GET', '/auth/kyc-reviews', { cookie: freshOperator });
      assert.equal(queue.status, 200);
      assert.deepEqual(
        queue.body.reviews.map((review: { ID: string }) => review.ID),
        [first, second],
      );
      assert.equal(queue.body.hasMore, false);
      assert.deepEqual(Object.keys(queue.body.reviews[0]).sort(), [...CUSTOMER_FIELDS, 'KYCReviewReason'].sort());
    });

    it('approves a pending submission to tier 2, recorded with the user and the time; a second decision is 409', async () => {
      const id = await pendingCustomer();
      const started = new Date();
      const approved = await ops(`/auth/customers/${id}/kyc/approve`);
      assert.equal(approved.status, 200);
      assert.deepEqual(Object.keys(approved.body).sort(), CUSTOMER_FIELDS);
      assert.deepEqual([approved.body.KYCTier, approved.body.KYCStatus, approved.body.NINLast4], [2, 'approved', '5678']);
      const decision = (await auditOf(id)).find((row) => row.action === 'kyc_approved')!;
      assert.equal(decision.user_id, await userIdOf(operator));
      assert.ok(decision.created_at.getTime() >= started.getTime() - 1_000);
      assert.match(String(decision.detail.reviewReason), /unavailable/);
      for (const action of ['approve', 'reject']) {
        const again = await ops(`/auth/customers/${id}/kyc/${action}`);
        assert.equal(again.status, 409);
        assert.deepEqual(
          { error: again.body.error, code: again.body.code },
          { error: 'kyc submission is not pending review', code: 'conflict' },
        );
      }
      assert.ok(
        !(await call(stack.apiUrl, 'GET', '/auth/kyc-reviews', { cookie: operator })).body.reviews.some(
          (review: { ID: string }) => review.ID === id,
        ),
      );
    });

    it('rejects a pending submission to tier 1 rejected; the customer may resubmit and be verified', async () => {
      const id = await pendingCustomer(NOT_VERIFIED_NIN);
      const rejected = await ops(`/auth/customers/${id}/kyc/reject`);
      assert.equal(rejected.status, 200);
      assert.deepEqual([rejected.body.KYCTier, rejected.body.KYCStatus], [1, 'rejected']);
      assert.equal((await ops(`/auth/customers/${id}/kyc/reject`)).status, 409);
      const audit = await auditOf(id);
      assert.deepEqual(
        audit.map((row) => row.action),
        ['kyc_submitted', 'kyc_rejected'],
      );
      assert.equal(audit[1]!.user_id, await userIdOf(operator));
      const resubmitted = await api('POST', `/v1/customers/${id}/kyc`, { nin: VERIFIED_NIN });
      assert.deepEqual(resubmitted.body, { ID: id, KYCTier: 2, KYCStatus: 'approved', NINLast4: '8901' });
    });

    it('answers 409 for a decision on a customer that never submitted', async () => {
      const customer = await newCustomer();
      for (const action of ['approve', 'reject']) {
        const response = await ops(`/auth/customers/${customer.id}/kyc/${action}`);
        assert.equal(response.status, 409);
        assert.equal(response.body.error, 'kyc submission is not pending review');
      }
    });

    it("answers 404 for another tenant's, an unknown or a malformed customer on every operator route", async () => {
      const id = await pendingCustomer();
      for (const path of ['kyc/approve', 'kyc/reject', 'suspend', 'reactivate']) {
        for (const [customerId, cookie] of [
          [id, otherOperator],
          [randomUUID(), operator],
          ['not-a-uuid', operator],
        ] as const) {
          const response = await ops(`/auth/customers/${customerId}/${path}`, cookie);
          assert.equal(response.status, 404, `${path} ${customerId}`);
          assert.equal(response.body.error, 'customer not found');
        }
      }
      assert.ok(
        !(await call(stack.apiUrl, 'GET', '/auth/kyc-reviews', { cookie: otherOperator })).body.reviews.some(
          (review: { ID: string }) => review.ID === id,
        ),
      );
      const read = await api('GET', `/v1/customers/${id}`);
      assert.deepEqual([read.body.KYCStatus, read.body.Status], ['pending_review', 'active']);
    });

    it('refuses API keys (and no credentials) on every /auth route with 401', async () => {
      const id = await pendingCustomer();
      const routes: Array<[string, string]> = [
        ['GET', '/auth/kyc-reviews'],
        ['POST', `/auth/customers/${id}/kyc/approve`],
        ['POST', `/auth/customers/${id}/kyc/reject`],
        ['POST', `/auth/customers/${id}/suspend`],
        ['POST', `/auth/customers/${id}/reactivate`],
      ];
      for (const [method, path] of routes) {
        assert.equal((await call(stack.apiUrl, method, path, { apiKey: tenant.apiKey })).status, 401, path);
        assert.equal((await call(stack.apiUrl, method, path)).status, 401, path);
      }
      assert.equal((await api('GET', `/v1/customers/${id}`)).body.KYCStatus, 'pending_review');
    });
  });

  describe('customer status', () => {
    it('suspends a customer: settling from its account is 403 "customer suspended", payments are still recorded; reactivation lifts it', async () => {
      const customer = await newCustomer();
      const suspended = await ops(`/auth/customers/${customer.id}/suspend`);
      assert.equal(suspended.status, 200);
      assert.equal(suspended.body.Status, 'suspended');
      const settle = { amount: '100.00', bankCode: '044', accountNumber: '0123456789' };
      const refused = await api('POST', `/v1/accounts/${customer.accountRef}/settle`, settle);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, 'customer suspended');

      const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: customer.accountRef, amount: 5025 } });
      assert.equal(sent.body.delivery.status, 200);
      const page = await statement(stack, tenant.apiKey, customer.accountRef);
      assert.deepEqual(
        page.body.lines.map((line: { entry: { ProviderTxnRef: string; Amount: string } }) => [
          line.entry.ProviderTxnRef,
          line.entry.Amount,
        ]),
        [[sent.body.transactionId, '5000.00']],
      );

      const reactivated = await ops(`/auth/customers/${customer.id}/reactivate`);
      assert.equal(reactivated.status, 200);
      assert.equal(reactivated.body.Status, 'active');
      const allowed = await api('POST', `/v1/accounts/${customer.accountRef}/settle`, settle);
      // The payment recorded while suspended is in the ledger balance, which settlement spends.
      assert.equal(allowed.status, 202);
    });

    it('answers the current customer, unchanged and unaudited, when already in the asked state', async () => {
      const customer = await newCustomer();
      const active = await ops(`/auth/customers/${customer.id}/reactivate`);
      assert.equal(active.status, 200);
      assert.equal(active.body.Status, 'active');
      assert.equal((await ops(`/auth/customers/${customer.id}/suspend`)).body.Status, 'suspended');
      const again = await ops(`/auth/customers/${customer.id}/suspend`);
      assert.equal(again.status, 200);
      assert.equal(again.body.Status, 'suspended');
      const audit = await auditOf(customer.id);
      assert.deepEqual(
        audit.map((row) => [row.action, row.user_id]),
        [['suspended', await userIdOf(operator)]],
      );
    });
  });
});

describe('identity verification client', () => {
  const logger = createLogger('silent', 'test');
  let server: http.Server;
  let url: string;
  let answer: (response: http.ServerResponse) => void;

  before(async () => {
    server = http.createServer((_request, response) => answer(response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/nin`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const verify = (target = url) =>
    createIdentityClient({ IDENTITY_VERIFICATION_URL: target, IDENTITY_VERIFICATION_TIMEOUT: 300 }, logger).verifyNin(
      VERIFIED_NIN,
      'Ada Obi',
    );
  const json = (status: number, body: unknown) => (response: http.ServerResponse) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  it('reads a definite yes or no', async () => {
    answer = json(200, { verified: true });
    assert.deepEqual(await verify(), { outcome: 'verified' });
    answer = json(200, { verified: false });
    assert.deepEqual(await verify(), { outcome: 'not_verified' });
  });

  it('calls anything else unavailable: a timeout, a 5xx, a refusal, a garbled answer, a closed port', async () => {
    answer = () => undefined;
    assert.deepEqual(await verify(), { outcome: 'unavailable', reason: 'timed out after 300 ms' });
    answer = json(502, { error: 'bad gateway' });
    assert.deepEqual(await verify(), { outcome: 'unavailable', reason: 'HTTP 502' });
    answer = json(400, { error: 'bad request' });
    assert.deepEqual(await verify(), { outcome: 'unavailable', reason: 'HTTP 400' });
    answer = json(200, { verified: 'yes' });
    assert.deepEqual(await verify(), { outcome: 'unavailable', reason: 'unrecognised response' });
    assert.deepEqual(await verify('http://127.0.0.1:9/nin'), { outcome: 'unavailable', reason: 'network error' });
  });
});
