import type { ScheduleHandle } from '@temporalio/client';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { generate } from 'otplib';
import { accountHolderName } from '../../../src/sandbox/names';
import { approvalUsers, asUser, freshAccountNumber, fundedAccount as fundedAccountOf, pausedExpirySchedule } from '../../helpers/approvals';
import type { ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardUser, type DashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/**
 * Maker-checker: under a tenant's approval policy a payout at or above its amount waits, its money reserved, until a
 * user other than its maker approves it (it then runs as any settlement) or rejects it, or until it expires; with no
 * policy every payout runs at once, as before. Expiry runs on the reservation expiry Schedule, made here and run by hand.
 */
describe('payout approvals (maker-checker)', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let admin: DashboardUser;
  let operator: DashboardUser;
  let approver: DashboardUser;
  let expirySchedule: ScheduleHandle;
  // Two-factor codes are judged by the API's clock, this far ahead of the real one: a test moves it instead of waiting.
  let clockSkewMs = 0;
  const apiNow = () => Date.now() + clockSkewMs;

  before(async () => {
    stack = await startStack({}, { worker: true, clock: apiNow });
    tenant = await createTenant(stack, 'Approvals Tenant');
    ({ admin, operator, approver } = await approvalUsers(stack, tenant.tenantId, { payoutAtOrAbove: '1000' }));
    expirySchedule = await pausedExpirySchedule(stack);
  });
  after(async () => {
    await expirySchedule?.delete();
    await stack.close();
  });

  const as = (user: DashboardUser, method: string, path: string, body?: unknown) => asUser(stack, user, method, path, body);
  const fundedAccount = (apiKey = tenant.apiKey) => fundedAccountOf(stack, apiKey);

  const balance = async (account: ProvisionedAccount, apiKey = tenant.apiKey) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey })).body as {
      ledgerBalance: string;
      availableBalance: string;
      heldBalance: string;
      reserved: Record<string, string>;
    };

  const settleByKey = (account: ProvisionedAccount, amount: string, apiKey = tenant.apiKey) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey,
      body: { amount, bankCode: '058', accountNumber: freshAccountNumber() },
    });

  const transfer = async (ref: string, apiKey = tenant.apiKey) =>
    (await call(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey })).body as { status: string; attemptCount: number };

  const eventsOf = async (ref: string) =>
    (await stack.infra
      .db('tenant_events')
      .where({ tenant_id: tenant.tenantId, subject: ref })
      .orderBy('sequence')
      .select('type', 'data')) as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;

  it('with no policy a payout runs at once, exactly as before', async () => {
    const plain = await createTenant(stack, 'No Policy Tenant');
    const account = await fundedAccount(plain.apiKey);
    const settled = await settleByKey(account, '5000.00', plain.apiKey);
    assert.equal(settled.status, 202, settled.text);
    assert.deepEqual(Object.keys(settled.body), ['merchantTxRef', 'status', 'amount', 'currency', 'accountRef']);
    assert.equal(settled.body.status, 'pending');
    assert.equal((await balance(account, plain.apiKey)).ledgerBalance, '5000.00');
    assert.equal(await stack.infra.db('payout_approvals').where({ tenant_id: plain.tenantId }).first(), undefined);
  });

  it('a payout below the amount runs at once under the policy', async () => {
    const account = await fundedAccount();
    const settled = await settleByKey(account, '999.99');
    assert.deepEqual([settled.status, settled.body.status], [202, 'pending']);
  });

  it('a payout at or above the amount waits with its amount reserved; its maker cannot approve it; another user approves and it pays once', async () => {
    const account = await fundedAccount();
    const accountNumber = freshAccountNumber();
    const made = await as(admin, 'POST', `/auth/accounts/${account.AccountRef}/settle`, {
      amount: '3000.00',
      bankCode: '058',
      accountNumber,
      confirmedAccountName: accountHolderName(accountNumber),
    });
    assert.equal(made.status, 202, made.text);
    assert.equal(made.body.status, 'awaiting_approval');
    const ref = made.body.merchantTxRef as string;
    const held = await balance(account);
    assert.deepEqual([held.ledgerBalance, held.heldBalance, held.reserved.payout_approval], ['10000.00', '3000.00', '3000.00']);
    const overSpendable = await settleByKey(account, '7000.01');
    assert.deepEqual([overSpendable.status, overSpendable.body.error], [400, 'insufficient funds'], 'what can be spent is 3,000.00 less');
    assert.equal((await transfer(ref)).status, 'awaiting_approval');
    const listed = (await as(approver, 'GET', '/auth/approvals')).body.payouts as Array<{
      merchantTxRef: string;
      maker: string;
      reasons: string[];
    }>;
    const entry = listed.find((payout) => payout.merchantTxRef === ref);
    assert.deepEqual([entry?.maker, entry?.reasons], [admin.email, ['amount']]);

    const byMaker = await as(admin, 'POST', `/auth/approvals/${ref}/approve`);
    assert.deepEqual([byMaker.status, byMaker.body.code], [403, 'maker_cannot_approve']);
    assert.equal(
      (await as(operator, 'POST', `/auth/approvals/${ref}/approve`)).status,
      403,
      'an operator moves money but does not approve it',
    );
    assert.equal(
      (await call(stack.apiUrl, 'POST', `/auth/approvals/${ref}/approve`, { apiKey: tenant.apiKey })).status,
      401,
      'no API key approves',
    );

    const approved = await as(approver, 'POST', `/auth/approvals/${ref}/approve`);
    assert.deepEqual([approved.status, approved.body.status, approved.body.merchantTxRef], [202, 'pending', ref]);
    await eventually(async () => (await transfer(ref)).status === 'success', { what: 'the approved payout paid' });
    assert.equal((await call(stack.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body.payouts, 1, 'one transfer at the provider');
    assert.deepEqual([(await as(approver, 'POST', `/auth/approvals/${ref}/approve`)).status], [409], 'approved once');
    const after = await balance(account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance, after.reserved.payout_approval], ['7000.00', '0.00', '0.00']);

    assert.deepEqual(
      (await eventsOf(ref)).map((event) => event.type),
      ['settlement.awaiting_approval', 'settlement.approved', 'settlement.created', 'settlement.succeeded'],
    );
    const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, target_id: ref }).orderBy('id');
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor]),
      [
        ['settlement.initiated', admin.email],
        ['settlement.approved', approver.email],
      ],
    );
  });

  it("a key's payout waits, a user approves or rejects it, and a rejected one releases exactly its amount", async () => {
    const account = await fundedAccount();
    const made = await settleByKey(account, '2500.00');
    assert.deepEqual([made.status, made.body.status], [202, 'awaiting_approval']);
    const ref = made.body.merchantTxRef as string;
    assert.equal((await balance(account)).heldBalance, '2500.00');
    assert.equal((await settleByKey(account, '7500.01')).status, 400, 'what can be spent is 2,500.00 less');

    const rejected = await as(approver, 'POST', `/auth/approvals/${ref}/reject`, { note: 'not this month' });
    assert.deepEqual([rejected.status, rejected.body.status], [200, 'rejected'], rejected.text);
    const after = await balance(account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance, after.reserved.payout_approval], ['10000.00', '0.00', '0.00']);
    assert.equal((await settleByKey(account, '999.99')).body.status, 'pending', 'the released money can be spent again');
    assert.equal((await transfer(ref)).status, 'rejected');
    assert.equal((await as(approver, 'POST', `/auth/approvals/${ref}/approve`)).status, 409);
    const events = await eventsOf(ref);
    assert.deepEqual(
      events.map((event) => [event.type, event.data.decidedBy, event.data.note]),
      [
        ['settlement.awaiting_approval', undefined, undefined],
        ['settlement.rejected', approver.email, 'not this month'],
      ],
    );
    assert.equal(await stack.infra.db('settlements').where({ merchant_tx_ref: ref }).first(), undefined, 'no settlement made');
  });

  it('a decision asks a user with two-factor sign-in for a code of the last 5 minutes; one without decides with the session', async () => {
    const codeNow = (secret: string) => generate({ secret, epoch: Math.floor(apiNow() / 1000) });
    const enrolled = await dashboardUser(stack, tenant.tenantId, 'approver');
    const started = await as(enrolled, 'POST', '/auth/two-factor/enrolment');
    assert.equal(started.status, 201, started.text);
    const secret = started.body.secret as string;
    assert.equal((await as(enrolled, 'POST', '/auth/two-factor/enrolment/confirm', { code: await codeNow(secret) })).status, 200);
    const account = await fundedAccount();
    const first = (await settleByKey(account, '1500.00')).body.merchantTxRef as string;
    const second = (await settleByKey(account, '1200.00')).body.merchantTxRef as string;
    const third = (await settleByKey(account, '1100.00')).body.merchantTxRef as string;

    clockSkewMs += 5 * 60_000 + 1000;
    for (const [path, body] of [
      [`/auth/approvals/${first}/approve`, undefined],
      [`/auth/approvals/${second}/reject`, { note: 'stale' }],
    ] as const) {
      const stale = await as(enrolled, 'POST', path, body);
      assert.deepEqual([stale.status, stale.body.code], [403, 'fresh_code_required'], `${path}: ${stale.text}`);
    }
    assert.equal((await transfer(first)).status, 'awaiting_approval', 'nothing decided without the code');
    assert.equal((await balance(account)).heldBalance, '3800.00');

    const stepUp = await as(enrolled, 'POST', '/auth/two-factor/step-up', { code: await codeNow(secret) });
    assert.equal(stepUp.status, 200, stepUp.text);
    const approved = await as(enrolled, 'POST', `/auth/approvals/${first}/approve`);
    assert.deepEqual([approved.status, approved.body.status], [202, 'pending'], approved.text);
    const rejected = await as(enrolled, 'POST', `/auth/approvals/${second}/reject`, {});
    assert.deepEqual([rejected.status, rejected.body.status], [200, 'rejected'], rejected.text);

    // An approver without an authenticator, at a tenant that does not require one, decides as before.
    const plain = await as(approver, 'POST', `/auth/approvals/${third}/reject`, {});
    assert.deepEqual([plain.status, plain.body.status], [200, 'rejected'], plain.text);
  });

  it('a payout the account cannot cover is refused at once, as today, and nothing waits', async () => {
    const account = await fundedAccount();
    const refused = await settleByKey(account, '10000.01');
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error, 'insufficient funds');
    assert.equal(await stack.infra.db('payout_approvals').where({ account_id: account.ID }).first(), undefined);
    assert.equal((await balance(account)).heldBalance, '0.00');
  });

  it("a suspended customer's payout is refused at once, as today, and nothing waits", async () => {
    const account = await fundedAccount();
    assert.equal((await as(admin, 'POST', `/auth/customers/${account.CustomerID}/suspend`, {})).status, 200);
    const refused = await settleByKey(account, '5000.00');
    assert.deepEqual([refused.status, refused.body.error], [403, 'customer suspended'], refused.text);
    assert.equal(await stack.infra.db('payout_approvals').where({ account_id: account.ID }).first(), undefined);
    assert.equal((await balance(account)).heldBalance, '0.00');
  });

  it("a debit-frozen account's payout is refused at once with the freeze named, and nothing waits", async () => {
    const account = await fundedAccount();
    const frozen = await as(operator, 'PUT', `/auth/accounts/${account.AccountRef}/freeze`, {
      frozenFor: 'debits',
      reason: 'fraud_review',
    });
    assert.equal(frozen.status, 200, frozen.text);
    const refused = await settleByKey(account, '5000.00');
    assert.deepEqual([refused.status, refused.body.code], [409, 'account_frozen'], refused.text);
    assert.equal(await stack.infra.db('payout_approvals').where({ account_id: account.ID }).first(), undefined);
    assert.equal((await balance(account)).heldBalance, '0.00');
  });

  it('a retry under the same Idempotency-Key answers the waiting payout, reserving nothing more', async () => {
    const account = await fundedAccount();
    const body = { amount: '1500.00', bankCode: '058', accountNumber: freshAccountNumber() };
    const headers = { 'Idempotency-Key': randomUUID() };
    const path = `/v1/accounts/${account.AccountRef}/settle`;
    const first = await call(stack.apiUrl, 'POST', path, { apiKey: tenant.apiKey, body, headers });
    const again = await call(stack.apiUrl, 'POST', path, { apiKey: tenant.apiKey, body, headers });
    assert.deepEqual([again.status, again.body], [202, first.body]);
    assert.equal((await balance(account)).heldBalance, '1500.00');
  });

  it('an unapproved payout expires and releases exactly its amount on the reservation expiry Schedule', async () => {
    const quick = await createTenant(stack, 'Quick Expiry Tenant');
    const quickAdmin = await dashboardUser(stack, quick.tenantId, 'admin');
    const quickApprover = await dashboardUser(stack, quick.tenantId, 'approver');
    assert.equal((await as(quickAdmin, 'PUT', '/auth/approval-policy', { payoutAtOrAbove: '1000', expiresAfterSeconds: 1 })).status, 200);
    const account = await fundedAccount(quick.apiKey);
    const made = await settleByKey(account, '4000.00', quick.apiKey);
    assert.equal(made.body.status, 'awaiting_approval');
    const ref = made.body.merchantTxRef as string;
    const expiresAt = new Date((await as(quickApprover, 'GET', `/auth/approvals/${ref}`)).body.expiresAt).getTime();
    await eventually(async () => Date.now() > expiresAt, { what: 'the expiry passed' });
    assert.equal((await as(quickApprover, 'POST', `/auth/approvals/${ref}/approve`)).status, 409, 'past its expiry nobody approves it');

    await expirySchedule.trigger();
    await eventually(async () => (await transfer(ref, quick.apiKey)).status === 'expired', { what: 'the payout expired' });
    const after = await balance(account, quick.apiKey);
    assert.deepEqual([after.ledgerBalance, after.heldBalance, after.reserved.payout_approval], ['10000.00', '0.00', '0.00']);
    const events = await stack.infra
      .db('tenant_events')
      .where({ tenant_id: quick.tenantId, subject: ref })
      .orderBy('sequence')
      .pluck('type');
    assert.deepEqual(events, ['settlement.awaiting_approval', 'settlement.expired']);
    const audit = await stack.infra.db('audit_log').where({ tenant_id: quick.tenantId, target_id: ref, action: 'settlement.expired' });
    assert.equal(audit.length, 1);
  });

  it('the first payout to a new destination waits when the policy asks, and one to a destination paid before does not', async () => {
    const fresh = await createTenant(stack, 'New Destination Tenant');
    const freshAdmin = await dashboardUser(stack, fresh.tenantId, 'admin');
    const account = await fundedAccount(fresh.apiKey);
    const accountNumber = freshAccountNumber();
    const pay = () =>
      call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
        apiKey: fresh.apiKey,
        body: { amount: '10.00', bankCode: '058', accountNumber },
      });
    assert.equal((await pay()).body.status, 'pending', 'no policy yet: paid at once');
    assert.equal((await as(freshAdmin, 'PUT', '/auth/approval-policy', { newDestination: true })).status, 200);
    assert.equal((await pay()).body.status, 'pending', 'paid before');
    const elsewhere = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: fresh.apiKey,
      body: { amount: '10.00', bankCode: '058', accountNumber: freshAccountNumber() },
    });
    assert.equal(elsewhere.body.status, 'awaiting_approval');
    const held = await as(freshAdmin, 'GET', `/auth/approvals/${elsewhere.body.merchantTxRef}`);
    assert.deepEqual(held.body.reasons, ['new_destination']);
  });

  it('setting the policy needs set_money_rules; a read-only key is refused every write', async () => {
    assert.equal((await as(operator, 'PUT', '/auth/approval-policy', {})).status, 403);
    assert.equal((await as(approver, 'DELETE', '/auth/approval-policy')).status, 403);
    const readOnly = await as(admin, 'POST', '/auth/api-keys', { name: 'reader', scopes: ['read'] });
    assert.equal(readOnly.status, 201, readOnly.text);
    const account = await fundedAccount();
    const refused = await settleByKey(account, '5000.00', readOnly.body.Key);
    assert.deepEqual([refused.status, refused.body.code], [403, 'missing_scope']);
    const scopes = (await call(stack.apiUrl, 'GET', '/auth/api-key-scopes', { cookie: admin.cookie })).body.scopes as Array<{
      scope: string;
    }>;
    assert.ok(scopes.length > 0);
    assert.deepEqual(
      scopes.filter(({ scope }) => /approv/.test(scope)),
      [],
      'no scope approves money',
    );
  });
});
