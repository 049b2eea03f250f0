import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { startReceiver } from '../../helpers/receiver';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

describe('freezes: an account closed to debits, credits or both', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    // A worker, whose event dispatcher delivers the tenant's events to its endpoints.
    stack = await startStack({ EVENT_DISPATCH_INTERVAL: '100ms' }, { worker: true });
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const balance = async (account: ProvisionedAccount) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body;
  const settle = (account: ProvisionedAccount, amount: string) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, { apiKey: tenant.apiKey, body: { amount, ...DESTINATION } });
  const transfer = (from: ProvisionedAccount, to: ProvisionedAccount, amount: string) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${from.AccountRef}/transfers`, {
      apiKey: tenant.apiKey,
      headers: { 'Idempotency-Key': randomUUID() },
      body: { toAccountRef: to.AccountRef, amount },
    });
  const freeze = (account: ProvisionedAccount, body: Record<string, unknown>) =>
    call(stack.apiUrl, 'PUT', `/v1/accounts/${account.AccountRef}/freeze`, { apiKey: tenant.apiKey, body });
  const unfreeze = (account: ProvisionedAccount) =>
    call(stack.apiUrl, 'DELETE', `/v1/accounts/${account.AccountRef}/freeze`, { apiKey: tenant.apiKey });
  const credit = async (account: ProvisionedAccount) =>
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 5_025, fee: 25 }))).status, 200);
  const verifyLedger = async () => (JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] }).problems;

  it('a debit-frozen account refuses a payout and a transfer out with a 409 naming the freeze, and still receives', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const other = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 1_000_00n);
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const frozen = await call(stack.apiUrl, 'PUT', `/auth/accounts/${account.AccountRef}/freeze`, {
      cookie: operator,
      body: { frozenFor: 'debits', reason: 'fraud_review', note: 'recall from the payer bank' },
    });
    assert.deepEqual([frozen.status, frozen.body.frozenFor, frozen.body.reason], [200, 'debits', 'fraud_review'], frozen.text);

    const refused = await settle(account, '1.00');
    assert.deepEqual([refused.status, refused.body.code], [409, 'account_frozen'], refused.text);
    assert.match(refused.body.error, new RegExp(`account ${account.AccountRef} is frozen for debits \\(fraud_review\\)`));
    const moved = await transfer(account, other, '1.00');
    assert.deepEqual([moved.status, moved.body.code], [409, 'account_frozen'], moved.text);

    await credit(account);
    const received = await balance(account);
    assert.deepEqual([received.ledgerBalance, received.heldBalance], ['6000.00', '0.00']);
    assert.deepEqual([received.freeze.frozenFor, received.freeze.reason], ['debits', 'fraud_review']);
    const statement = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/statement`, { apiKey: tenant.apiKey });
    assert.equal(statement.body.freeze.frozenFor, 'debits');

    assert.deepEqual([(await unfreeze(account)).status], [200]);
    assert.equal((await settle(account, '1000.00')).status, 202);
    assert.equal((await unfreeze(account)).status, 409, 'not frozen any more');

    const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, target_id: account.AccountRef }).orderBy('id');
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor === 'API key', row.detail.note ?? null]),
      [
        ['account.frozen', false, 'recall from the payer bank'],
        ['account.unfrozen', true, null],
      ],
    );
    assert.deepEqual(await verifyLedger(), []);
  });

  it("a credit-frozen account's webhook credit lands held, and the lift releases exactly it; it may still pay out", async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_00n);
    assert.equal((await freeze(account, { frozenFor: 'credits', reason: 'regulatory_order' })).status, 200);

    await credit(account);
    const held = await balance(account);
    assert.deepEqual([held.ledgerBalance, held.heldBalance, held.reserved.credit_freeze], ['5100.00', '5000.00', '5000.00']);
    assert.equal((await settle(account, '100.01')).status, 400, 'the held credit may not be spent');
    assert.equal((await settle(account, '100.00')).status, 202, 'debits are not frozen');

    const lifted = await unfreeze(account);
    assert.deepEqual([lifted.status, lifted.body.released], [200, '5000.00']);
    const released = await balance(account);
    assert.deepEqual([released.heldBalance, released.reserved.credit_freeze, released.freeze], ['0.00', '0.00', null]);
    assert.deepEqual(await verifyLedger(), []);
  });

  it('changing a credit freeze to debits only releases the credits it held, and later credits land free', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    assert.equal((await freeze(account, { frozenFor: 'both', reason: 'fraud_review' })).status, 200);
    await credit(account);
    assert.deepEqual((await balance(account)).reserved.credit_freeze, '5000.00');

    const changed = await freeze(account, { frozenFor: 'debits', reason: 'fraud_review' });
    assert.deepEqual([changed.status, changed.body.frozenFor, changed.body.released], [200, 'debits', '5000.00'], changed.text);
    await credit(account);
    const after = await balance(account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance, after.reserved.credit_freeze], ['10000.00', '0.00', '0.00']);
    assert.equal((await settle(account, '1.00')).status, 409, 'still frozen for debits');
    const lifted = await unfreeze(account);
    assert.deepEqual([lifted.status, lifted.body.released], [200, '0.00']);
    assert.equal((await settle(account, '10000.00')).status, 202, 'all of it may be spent once the freeze is lifted');
    assert.deepEqual(await verifyLedger(), []);
  });

  it('the held-money queue neither lists, releases nor returns a credit a freeze holds, nor a lien', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_00n);
    assert.equal((await freeze(account, { frozenFor: 'credits', reason: 'fraud_review' })).status, 200);
    await credit(account);
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const lien = await call(stack.apiUrl, 'POST', `/auth/accounts/${account.AccountRef}/liens`, {
      cookie: operator,
      body: { amount: '10.00', reason: 'dispute' },
    });
    assert.equal(lien.status, 201, lien.text);
    const { owner_id: entryId } = await stack.infra
      .db('ledger_reservations')
      .where({ account_id: account.ID, kind: 'credit_freeze' })
      .first('owner_id');

    const queue = await call(stack.apiUrl, 'GET', '/auth/holds', { cookie: operator });
    assert.equal(queue.status, 200, queue.text);
    assert.deepEqual(
      queue.body.holds.filter((hold: { accountRef: string }) => hold.accountRef === account.AccountRef),
      [],
    );
    const release = await call(stack.apiUrl, 'POST', `/auth/holds/${entryId}/release`, { cookie: operator, body: { note: 'not mine' } });
    assert.deepEqual(
      [release.status, release.body.error],
      [409, 'this credit is held by a freeze on the account, which the held-money queue does not release or return'],
      release.text,
    );
    const lookup = await call(stack.apiUrl, 'POST', `/auth/holds/${entryId}/return/lookup`, { cookie: operator, body: {} });
    assert.equal(lookup.status, 409, lookup.text);
    const returned = await call(stack.apiUrl, 'POST', `/auth/holds/${entryId}/return`, { cookie: operator, body: { note: 'not mine' } });
    assert.equal(returned.status, 409, returned.text);
    const lienRelease = await call(stack.apiUrl, 'POST', `/auth/holds/${lien.body.lienId}/release`, {
      cookie: operator,
      body: { note: 'x' },
    });
    assert.deepEqual([lienRelease.status, lienRelease.body.error], [404, 'held credit not found']);

    const still = await balance(account);
    assert.deepEqual([still.reserved.credit_freeze, still.reserved.lien], ['5000.00', '10.00']);
    const told = await stack.infra.db('tenant_events').where({ tenant_id: tenant.tenantId, type: 'kyc.hold_released' });
    assert.deepEqual(told, []);
    assert.deepEqual(await verifyLedger(), []);
  });

  it('tells a subscribed endpoint account.frozen (each change) and account.unfrozen', async () => {
    const own = await createTenant(stack);
    const receiver = await startReceiver([200]);
    try {
      const endpoint = await call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', {
        apiKey: own.apiKey,
        body: { url: receiver.url, eventTypes: ['account.frozen', 'account.unfrozen'] },
      });
      assert.equal(endpoint.status, 201, endpoint.text);
      const account = await provisionAccount(stack, own.apiKey);
      const path = `/v1/accounts/${account.AccountRef}/freeze`;
      assert.equal(
        (await call(stack.apiUrl, 'PUT', path, { apiKey: own.apiKey, body: { frozenFor: 'both', reason: 'regulatory_order' } })).status,
        200,
      );
      assert.equal(
        (await call(stack.apiUrl, 'PUT', path, { apiKey: own.apiKey, body: { frozenFor: 'debits', reason: 'dispute' } })).status,
        200,
      );
      assert.equal((await call(stack.apiUrl, 'DELETE', path, { apiKey: own.apiKey })).status, 200);

      await eventually(async () => receiver.calls.length >= 3, { what: 'the three freeze deliveries' });
      const told = receiver.calls
        .map((received) => JSON.parse(received.body))
        .map((envelope) => [envelope.sequence, envelope.type, envelope.subject, envelope.data])
        .sort((a, b) => a[0] - b[0]);
      const ref = account.AccountRef;
      assert.deepEqual(told, [
        [1, 'account.frozen', ref, { accountRef: ref, frozenFor: 'both', reason: 'regulatory_order' }],
        [2, 'account.frozen', ref, { accountRef: ref, frozenFor: 'debits', reason: 'dispute' }],
        [3, 'account.unfrozen', ref, { accountRef: ref }],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a side or reason outside the declared lists, and a key without freezes:write', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const badSide = await freeze(account, { frozenFor: 'sometimes', reason: 'dispute' });
    assert.equal(badSide.status, 400);
    assert.match(JSON.stringify(badSide.body), /frozenFor must be one of debits, credits, both/);
    const admin = await dashboardSession(stack, tenant.tenantId, 'admin');
    const key = await call(stack.apiUrl, 'POST', '/auth/api-keys', { cookie: admin, body: { name: 'reader', scopes: ['read'] } });
    assert.equal(key.status, 201, key.text);
    const refused = await call(stack.apiUrl, 'PUT', `/v1/accounts/${account.AccountRef}/freeze`, {
      apiKey: key.body.Key,
      body: { frozenFor: 'both', reason: 'dispute' },
    });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error, /freezes:write/);
  });
});
