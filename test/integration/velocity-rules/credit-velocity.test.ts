import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { addVelocityRule, velocityTenant, type VelocityTenant } from '../../helpers/velocity-rules';
import { paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually, type HttpResponse } from '../../helpers/http';
import { dashboardUser } from '../../helpers/session';
import { startStack, type Stack } from '../../helpers/stack';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

/**
 * Velocity rules over credits: a payment past a tenant's rule lands (the provider has its money) but held whole, with
 * the rule's message, until an operator releases it from the held-money queue. Each test has its own tenant, as a rule
 * judges every credit of its tenant.
 */
describe('velocity rules over credits', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack.close();
  });

  type Tenant = VelocityTenant;
  const newTenant = (name: string) => velocityTenant(stack, name);
  const addRule = (tenant: Tenant, rule: Record<string, unknown>) => addVelocityRule(stack, tenant, rule);

  /** A payment of 5,000.00 (gross 5,025.00, fee 25.00) to the account, by the provider's webhook. */
  const credit = (account: ProvisionedAccount) =>
    sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 5_025, fee: 25 }));

  const balance = async (tenant: Tenant, account: ProvisionedAccount) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body as {
      ledgerBalance: string;
      pendingCredits: string;
      heldBalance: string;
      reserved: Record<string, string>;
    };

  const eventsOf = async (tenant: Tenant, type: string) =>
    (
      (await stack.infra.db('tenant_events').where({ tenant_id: tenant.tenantId, type }).orderBy('sequence').select('data')) as Array<{
        data: Record<string, unknown>;
      }>
    ).map(({ data }) => data);

  const oneAnHour = { subject: 'credits', measure: 'count', maxCount: 1, windowSeconds: 3600, action: 'hold' };

  it('a credit past a count rule lands held whole with its message; under it, free; an operator releases it, audited', async () => {
    const tenant = await newTenant('Credit Velocity Hold');
    const rule = await addRule(tenant, { ...oneAnHour, scope: 'account', message: 'More than one payment an hour: check the payer' });
    const account = await provisionAccount(stack, tenant.apiKey);

    assert.equal((await credit(account)).status, 200);
    const free = await balance(tenant, account);
    assert.deepEqual([free.ledgerBalance, free.heldBalance, free.reserved.velocity_hold], ['5000.00', '0.00', '0.00'], 'under the rule');

    assert.equal((await credit(account)).status, 200, 'a credit past a rule is never refused');
    const held = await balance(tenant, account);
    assert.deepEqual(
      [held.ledgerBalance, held.heldBalance, held.reserved.velocity_hold],
      ['10000.00', '5000.00', '5000.00'],
      'the second credit is in the balance, none of it spendable',
    );
    const [told] = await eventsOf(tenant, 'velocity_rule.triggered');
    assert.deepEqual(
      [told?.ruleId, told?.action, told?.subject, told?.accountRef, told?.amount, told?.merchantTxRef, told?.message],
      [rule.id, 'hold', 'credits', account.AccountRef, '5000.00', null, 'More than one payment an hour: check the payer'],
    );

    const operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    const queue = await call(stack.apiUrl, 'GET', '/auth/holds', { cookie: operator.cookie });
    assert.equal(queue.status, 200, queue.text);
    const [hold] = queue.body.holds as Array<{ entryId: string; accountRef: string; held: string; limit: string; reason: string | null }>;
    assert.deepEqual(
      [queue.body.holds.length, hold?.accountRef, hold?.held, hold?.limit, hold?.reason],
      [1, account.AccountRef, '5000.00', 'velocity_rule', 'More than one payment an hour: check the payer'],
    );
    const released = await call(stack.apiUrl, 'POST', `/auth/holds/${hold!.entryId}/release`, {
      cookie: operator.cookie,
      body: { note: 'the payer is known to us' },
    });
    assert.deepEqual([released.status, released.body.released], [200, '5000.00'], released.text);
    const after = await balance(tenant, account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance, after.reserved.velocity_hold], ['10000.00', '0.00', '0.00']);
    const audited = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'kyc_hold.released' }).first('detail');
    assert.deepEqual([audited?.detail.limitKind, audited?.detail.note], ['velocity_rule', 'the payer is known to us']);
    assert.equal((await eventsOf(tenant, 'kyc.hold_released')).length, 1);

    const other = await provisionAccount(stack, tenant.apiKey);
    assert.equal((await credit(other)).status, 200);
    assert.equal((await balance(tenant, other)).heldBalance, '0.00', 'an account rule leaves other accounts alone');
    assert.deepEqual((JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] }).problems, []);
  });

  it("a customer rule counts every account of the customer's; an amount rule adds this credit to the window", async () => {
    const tenant = await newTenant('Credit Velocity Customer');
    await addRule(tenant, { ...oneAnHour, scope: 'customer', message: 'One payment an hour per customer' });
    const customer = { externalRef: `cust-${randomUUID()}` };
    const first = await provisionAccount(stack, tenant.apiKey, customer);
    const second = await provisionAccount(stack, tenant.apiKey, customer);
    assert.equal(second.CustomerID, first.CustomerID);
    assert.equal((await credit(first)).status, 200);
    assert.equal((await credit(second)).status, 200);
    assert.deepEqual([(await balance(tenant, first)).heldBalance, (await balance(tenant, second)).heldBalance], ['0.00', '5000.00']);

    const amounts = await newTenant('Credit Velocity Amount');
    await addRule(amounts, {
      subject: 'credits',
      measure: 'amount',
      maxAmount: '7500',
      windowSeconds: 86400,
      scope: 'account',
      action: 'hold',
      message: 'Over 7,500 a day',
    });
    const account = await provisionAccount(stack, amounts.apiKey);
    assert.equal((await credit(account)).status, 200);
    assert.equal((await credit(account)).status, 200);
    assert.deepEqual((await balance(amounts, account)).reserved.velocity_hold, '5000.00', 'the second takes the day to 10,000');
  });

  it('two credits at once under a rule of one an hour: exactly one lands held', async () => {
    const tenant = await newTenant('Credit Velocity Race');
    await addRule(tenant, { ...oneAnHour, scope: 'account', message: 'One an hour' });
    const account = await provisionAccount(stack, tenant.apiKey);
    const waiting = async () =>
      Number(
        (
          await stack.infra.db.raw(
            `SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
              WHERE NOT l.granted AND a.datname = current_database()`,
          )
        ).rows[0].n,
      );
    // The customer's row held while both webhooks arrive, so both reach the lock before either has posted: each must
    // read its window only once it holds the lock, or both find it empty.
    let both: Promise<HttpResponse[]> | undefined;
    await stack.infra.db.transaction(async (trx) => {
      await trx.raw('SELECT id FROM customers WHERE id = ? FOR NO KEY UPDATE', [account.CustomerID]);
      both = Promise.all([credit(account), credit(account)]);
      await eventually(async () => (await waiting()) >= 2, { what: "both credits waiting for the customer's lock" });
    });
    const answers = await both!;
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200],
    );
    const after = await balance(tenant, account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['10000.00', '5000.00'], 'one free, one held');
  });

  it('a credit rule over a destination, or one that refuses or reviews, is a 400 naming what is wrong', async () => {
    const tenant = await newTenant('Credit Velocity Bad Rules');
    const add = (rule: Record<string, unknown>) =>
      call(stack.apiUrl, 'POST', '/auth/velocity-rules', { cookie: tenant.admin.cookie, body: rule });
    const destination = await add({ ...oneAnHour, scope: 'destination', message: 'x' });
    assert.equal(destination.status, 400, destination.text);
    assert.match(destination.text, /a credit rule's scope must be \\"account\\" or \\"customer\\"/);
    const refusing = await add({ ...oneAnHour, scope: 'account', action: 'refuse', message: 'x' });
    assert.equal(refusing.status, 400, refusing.text);
    assert.match(refusing.text, /a credit rule's action must be \\"hold\\"/);
    const silent = await add({ ...oneAnHour, scope: 'account' });
    assert.equal(silent.status, 400, silent.text);
    assert.match(silent.text, /a holding rule names the message/);
    const payoutHold = await add({ ...oneAnHour, subject: 'payouts', scope: 'account', message: 'x' });
    assert.equal(payoutHold.status, 400, payoutHold.text);
    assert.match(payoutHold.text, /a payout rule's action must be \\"refuse\\" or \\"review\\"/);
    const listed = await call(stack.apiUrl, 'GET', '/auth/velocity-rules', { cookie: tenant.admin.cookie });
    assert.deepEqual(listed.body.data, []);
  });

  it('with payout rules only, credits land as they always have', async () => {
    const tenant = await newTenant('Credit Velocity None');
    await addRule(tenant, { ...oneAnHour, subject: 'payouts', scope: 'account', action: 'refuse', message: 'One payout an hour' });
    const account = await provisionAccount(stack, tenant.apiKey);
    assert.equal((await credit(account)).status, 200);
    assert.equal((await credit(account)).status, 200);
    const after = await balance(tenant, account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['10000.00', '0.00']);
    assert.deepEqual(await eventsOf(tenant, 'velocity_rule.triggered'), []);
  });
});
