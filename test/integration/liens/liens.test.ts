import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fundAccount, provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { startReceiver } from '../../helpers/receiver';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

describe('liens: money an operator or the tenant sets aside on an account', () => {
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
  const placeLien = (account: ProvisionedAccount, body: Record<string, unknown>) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/liens`, { apiKey: tenant.apiKey, body });
  const verifyLedger = async () => (JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] }).problems;

  it('a lien reduces what the account may spend by exactly its amount; lifting releases exactly it; both are audited', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 1_000_00n);
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const placed = await call(stack.apiUrl, 'POST', `/auth/accounts/${account.AccountRef}/liens`, {
      cookie: operator,
      body: { amount: '300.00', reason: 'fraud_review', note: 'case 42' },
    });
    assert.equal(placed.status, 201);
    const held = await balance(account);
    assert.deepEqual([held.heldBalance, held.reserved.lien], ['300.00', '300.00']);
    const statement = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/statement`, { apiKey: tenant.apiKey });
    assert.equal(statement.body.reserved.lien, '300.00');

    // balance - lien + 1 kobo is refused, balance - lien is paid.
    const refused = await settle(account, '700.01');
    assert.deepEqual([refused.status, refused.body.error], [400, 'insufficient funds']);
    assert.equal((await settle(account, '700.00')).status, 202);
    assert.equal((await settle(account, '0.01')).status, 400, 'what is left is the lien');

    const lifted = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/liens/${placed.body.lienId}/lift`, {
      apiKey: tenant.apiKey,
    });
    assert.deepEqual([lifted.status, lifted.body.released], [200, '300.00']);
    const released = await balance(account);
    assert.deepEqual([released.heldBalance, released.reserved.lien], ['0.00', '0.00']);
    assert.equal((await settle(account, '300.01')).status, 400);
    assert.equal((await settle(account, '300.00')).status, 202);
    const liftedAgain = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/liens/${placed.body.lienId}/lift`, {
      apiKey: tenant.apiKey,
    });
    assert.equal(liftedAgain.status, 409);

    const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, target_type: 'lien' }).orderBy('id');
    assert.deepEqual(
      audit.map((row) => [row.action, row.target_id, row.actor === 'API key', row.detail.reason ?? row.detail.released, row.detail.note]),
      [
        ['account.lien_placed', placed.body.lienId, false, 'fraud_review', 'case 42'],
        ['account.lien_lifted', placed.body.lienId, true, '300.00', undefined],
      ],
    );
    assert.deepEqual(await verifyLedger(), []);
  });

  it("a lien with an expiry is released by the ledger's reservation expiry", async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 500_00n);
    const expiresAt = new Date(Date.now() + 60_000);
    const placed = await placeLien(account, { amount: '200.00', reason: 'dispute', expiresAt: expiresAt.toISOString() });
    assert.deepEqual([placed.status, placed.body.expiresAt], [201, expiresAt.toISOString()]);
    assert.equal((await settle(account, '300.01')).status, 400);

    // The expiry Schedule's run, as it runs once the lien's time has come.
    await stack.infra.db.transaction((trx) => stack.services.ledger.expireDue(trx, new Date(expiresAt.getTime() + 1)));
    assert.equal((await balance(account)).reserved.lien, '0.00');
    assert.equal((await settle(account, '500.00')).status, 202);
    const lift = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/liens/${placed.body.lienId}/lift`, {
      apiKey: tenant.apiKey,
    });
    assert.equal(lift.status, 409);
    assert.deepEqual(await verifyLedger(), []);
  });

  it("tells a subscribed endpoint lien.placed, lien.lifted and lien.expired, each with the lien's exact amount", async () => {
    const own = await createTenant(stack);
    const receiver = await startReceiver([200]);
    try {
      const endpoint = await call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', {
        apiKey: own.apiKey,
        body: { url: receiver.url, eventTypes: ['lien.placed', 'lien.lifted', 'lien.expired'] },
      });
      assert.equal(endpoint.status, 201, endpoint.text);
      const account = await provisionAccount(stack, own.apiKey);
      await fundAccount(stack, account.ID, 1_000_00n);
      const place = (body: Record<string, unknown>) =>
        call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/liens`, { apiKey: own.apiKey, body });
      const lifted = await place({ amount: '123.45', reason: 'fraud_review' });
      const expiresAt = new Date(Date.now() + 60_000);
      const expiring = await place({ amount: '0.07', reason: 'debt_recovery', expiresAt: expiresAt.toISOString() });
      assert.deepEqual([lifted.status, expiring.status], [201, 201]);
      const lift = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/liens/${lifted.body.lienId}/lift`, {
        apiKey: own.apiKey,
      });
      assert.equal(lift.status, 200, lift.text);
      await stack.infra.db.transaction((trx) => stack.services.ledger.expireDue(trx, new Date(expiresAt.getTime() + 1)));

      await eventually(async () => receiver.calls.length >= 4, { what: 'the four lien deliveries' });
      const told = receiver.calls
        .map((received) => JSON.parse(received.body))
        .map((envelope) => [envelope.type, envelope.subject, envelope.sequence, envelope.data])
        .sort((a, b) => `${a[1]}${a[2]}`.localeCompare(`${b[1]}${b[2]}`));
      const ref = account.AccountRef;
      const expected = [
        [
          'lien.placed',
          lifted.body.lienId,
          1,
          { lienId: lifted.body.lienId, accountRef: ref, amount: '123.45', currency: 'NGN', reason: 'fraud_review', expiresAt: null },
        ],
        ['lien.lifted', lifted.body.lienId, 2, { lienId: lifted.body.lienId, accountRef: ref, amount: '123.45', currency: 'NGN' }],
        [
          'lien.placed',
          expiring.body.lienId,
          1,
          {
            lienId: expiring.body.lienId,
            accountRef: ref,
            amount: '0.07',
            currency: 'NGN',
            reason: 'debt_recovery',
            expiresAt: expiresAt.toISOString(),
          },
        ],
        ['lien.expired', expiring.body.lienId, 2, { lienId: expiring.body.lienId, accountRef: ref, amount: '0.07', currency: 'NGN' }],
      ].sort((a, b) => `${a[1]}${a[2]}`.localeCompare(`${b[1]}${b[2]}`));
      assert.deepEqual(told, expected);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a reason outside the declared list, a past expiry, and a key without liens:write', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const badReason = await placeLien(account, { amount: '1.00', reason: 'because' });
    assert.equal(badReason.status, 400);
    assert.match(JSON.stringify(badReason.body), /reason must be one of regulatory_order/);
    const past = await placeLien(account, { amount: '1.00', reason: 'dispute', expiresAt: new Date(Date.now() - 1000).toISOString() });
    assert.equal(past.status, 400);
    assert.match(JSON.stringify(past.body), /expiresAt must be in the future/);
    const admin = await dashboardSession(stack, tenant.tenantId, 'admin');
    const key = await call(stack.apiUrl, 'POST', '/auth/api-keys', { cookie: admin, body: { name: 'reader', scopes: ['read'] } });
    assert.equal(key.status, 201, key.text);
    const refused = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/liens`, {
      apiKey: key.body.Key,
      body: { amount: '1.00', reason: 'dispute' },
    });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error, /liens:write/);
  });
});
