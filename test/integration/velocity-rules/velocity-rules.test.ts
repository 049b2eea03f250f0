import assert from 'node:assert/strict';
import { freshAccountNumber, fundedAccount as fundedAccountOf } from '../../helpers/approvals';
import { addVelocityRule, velocityTenant, type VelocityTenant } from '../../helpers/velocity-rules';
import type { ProvisionedAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { dashboardUser } from '../../helpers/session';
import { startStack, type Stack } from '../../helpers/stack';

/**
 * Velocity rules: a tenant's limits on payouts within a rolling window, each refusing the payout past it with the
 * tenant's message or sending it to review (awaiting approval, its money reserved). Each test has its own tenant, as a
 * rule judges every payout of its tenant.
 */
describe('velocity rules', () => {
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

  const fundedAccount = (tenant: Tenant) => fundedAccountOf(stack, tenant.apiKey);

  const settle = (tenant: Tenant, account: ProvisionedAccount, amount: string, accountNumber = freshAccountNumber()) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount, bankCode: '058', accountNumber },
    });

  const balance = async (tenant: Tenant, account: ProvisionedAccount) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body as {
      ledgerBalance: string;
      heldBalance: string;
      reserved: Record<string, string>;
    };

  const triggered = async (tenant: Tenant) =>
    (
      (await stack.infra
        .db('tenant_events')
        .where({ tenant_id: tenant.tenantId, type: 'velocity_rule.triggered' })
        .orderBy('sequence')
        .select('data')) as Array<{ data: Record<string, unknown> }>
    ).map(({ data }) => data);

  const oneAnHour = { subject: 'payouts', measure: 'count', maxCount: 1, windowSeconds: 3600 };

  it('refuses the payout past a refusing rule with its message: 400, nothing reserved, nothing paid; the tenant is told', async () => {
    const tenant = await newTenant('Velocity Refuse');
    const rule = await addRule(tenant, { ...oneAnHour, scope: 'account', action: 'refuse', message: 'One payout an hour, please' });
    const account = await fundedAccount(tenant);
    const first = await settle(tenant, account, '1000.00');
    assert.deepEqual([first.status, first.body.status], [202, 'pending'], first.text);
    const second = await settle(tenant, account, '500.00');
    assert.deepEqual([second.status, second.body.code, second.body.error], [400, 'velocity_limit', 'One payout an hour, please']);
    const after = await balance(tenant, account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['9000.00', '0.00'], 'only the first payout took money');
    assert.equal(await stack.infra.db('payout_approvals').where({ tenant_id: tenant.tenantId }).first(), undefined);
    assert.equal((await stack.infra.db('settlements').where({ tenant_id: tenant.tenantId }).count({ n: '*' }))[0]!.n, '1');
    const [told] = await triggered(tenant);
    assert.deepEqual(
      [told?.ruleId, told?.action, told?.accountRef, told?.amount, told?.merchantTxRef, told?.message],
      [rule.id, 'refuse', account.AccountRef, '500.00', null, 'One payout an hour, please'],
    );

    const otherAccount = await fundedAccount(tenant);
    assert.equal((await settle(tenant, otherAccount, '500.00')).status, 202, 'a per-account rule leaves other accounts alone');
  });

  it('sends the payout past a reviewing rule to the approval queue with its money reserved, with no approval policy', async () => {
    const tenant = await newTenant('Velocity Review');
    const rule = await addRule(tenant, {
      subject: 'payouts',
      measure: 'amount',
      maxAmount: '1500',
      windowSeconds: 86400,
      scope: 'customer',
      action: 'review',
    });
    const account = await fundedAccount(tenant);
    assert.equal((await settle(tenant, account, '1000.00')).body.status, 'pending');
    const second = await settle(tenant, account, '600.00');
    assert.deepEqual([second.status, second.body.status], [202, 'awaiting_approval'], second.text);
    const held = await balance(tenant, account);
    assert.deepEqual([held.ledgerBalance, held.heldBalance, held.reserved.payout_approval], ['9000.00', '600.00', '600.00']);
    const approval = await stack.infra.db('payout_approvals').where({ merchant_tx_ref: second.body.merchantTxRef }).first('reasons');
    assert.deepEqual(approval?.reasons, ['velocity']);
    const listed = await call(stack.apiUrl, 'GET', '/auth/approvals', { cookie: tenant.admin.cookie });
    assert.ok(
      (listed.body.payouts as Array<{ merchantTxRef: string }>).some((payout) => payout.merchantTxRef === second.body.merchantTxRef),
      'in the approvals queue',
    );
    const [told] = await triggered(tenant);
    assert.deepEqual([told?.ruleId, told?.action, told?.merchantTxRef], [rule.id, 'review', second.body.merchantTxRef]);
  });

  it('two payouts at once under a rule of one an hour: exactly one passes (per account)', async () => {
    const tenant = await newTenant('Velocity Race Account');
    await addRule(tenant, { ...oneAnHour, scope: 'account', action: 'refuse', message: 'One an hour' });
    const account = await fundedAccount(tenant);
    const answers = await Promise.all([settle(tenant, account, '100.00'), settle(tenant, account, '100.00')]);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [202, 400], answers.map((answer) => answer.text).join(' | '));
    assert.equal((await balance(tenant, account)).ledgerBalance, '9900.00');
  });

  it('two payouts at once from two accounts to one destination under a rule of one an hour: exactly one passes', async () => {
    const tenant = await newTenant('Velocity Race Destination');
    await addRule(tenant, { ...oneAnHour, scope: 'destination', action: 'refuse', message: 'One an hour to a destination' });
    const [first, second] = [await fundedAccount(tenant), await fundedAccount(tenant)];
    const destination = freshAccountNumber();
    const answers = await Promise.all([settle(tenant, first, '100.00', destination), settle(tenant, second, '100.00', destination)]);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [202, 400], answers.map((answer) => answer.text).join(' | '));
    assert.equal((await settle(tenant, first, '100.00')).status, 202, 'another destination is its own window');
  });

  it('a payout whose window no longer holds the earlier one passes', async () => {
    const tenant = await newTenant('Velocity Window');
    await addRule(tenant, { ...oneAnHour, scope: 'account', action: 'refuse', message: 'One an hour' });
    const account = await fundedAccount(tenant);
    const first = await settle(tenant, account, '100.00');
    assert.equal(first.status, 202, first.text);
    assert.equal((await settle(tenant, account, '100.00')).status, 400);
    await stack.infra
      .db('settlements')
      .where({ merchant_tx_ref: first.body.merchantTxRef })
      .update({ created_at: stack.infra.db.raw("now() - interval '61 minutes'") });
    const later = await settle(tenant, account, '100.00');
    assert.deepEqual([later.status, later.body.status], [202, 'pending'], later.text);
  });

  it('rules are listed, read, replaced and removed, each change audited; bad rules are 400 with the reason', async () => {
    const tenant = await newTenant('Velocity CRUD');
    const session = { cookie: tenant.admin.cookie };
    const rule = await addRule(tenant, { ...oneAnHour, scope: 'destination', action: 'review' });
    const read = await call(stack.apiUrl, 'GET', `/v1/velocity-rules/${rule.id}`, { apiKey: tenant.apiKey });
    assert.deepEqual(read.body, { ...read.body, scope: 'destination', maxCount: 1, maxAmount: null, action: 'review', message: null });
    const replaced = await call(stack.apiUrl, 'PUT', `/auth/velocity-rules/${rule.id}`, {
      ...session,
      body: {
        subject: 'payouts',
        measure: 'amount',
        maxAmount: '250000.50',
        windowSeconds: 86400,
        scope: 'customer',
        action: 'refuse',
        message: 'Daily cap',
      },
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual([replaced.body.maxAmount, replaced.body.maxCount, replaced.body.message], ['250000.50', null, 'Daily cap']);
    const byKey = await call(stack.apiUrl, 'POST', '/v1/velocity-rules', {
      apiKey: tenant.apiKey,
      body: { ...oneAnHour, scope: 'account', action: 'refuse', message: 'Set by key' },
    });
    assert.equal(byKey.status, 201, byKey.text);
    const listed = await call(stack.apiUrl, 'GET', '/v1/velocity-rules', { apiKey: tenant.apiKey });
    assert.deepEqual(
      (listed.body.data as Array<{ id: string }>).map(({ id }) => id),
      [rule.id, byKey.body.id],
    );
    assert.equal((await call(stack.apiUrl, 'DELETE', `/auth/velocity-rules/${rule.id}`, session)).status, 204);
    assert.equal((await call(stack.apiUrl, 'GET', `/auth/velocity-rules/${rule.id}`, session)).status, 404);
    assert.equal((await call(stack.apiUrl, 'DELETE', `/v1/velocity-rules/not-a-rule`, { apiKey: tenant.apiKey })).status, 404);
    const audited = await stack.infra
      .db('audit_log')
      .where({ tenant_id: tenant.tenantId })
      .where('action', 'like', 'velocity_rule.%')
      .orderBy('id')
      .select('action', 'actor');
    assert.deepEqual(
      audited.map(({ action, actor }) => [action, actor]),
      [
        ['velocity_rule.created', tenant.admin.email],
        ['velocity_rule.updated', tenant.admin.email],
        ['velocity_rule.created', 'API key'],
        ['velocity_rule.deleted', tenant.admin.email],
      ],
    );

    const bad = async (body: Record<string, unknown>, message: RegExp) => {
      const refused = await call(stack.apiUrl, 'POST', '/auth/velocity-rules', { ...session, body });
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.body.error as string, message);
    };
    const good = { ...oneAnHour, scope: 'account', action: 'refuse', message: 'No' };
    await bad({ ...good, subject: 'deposits' }, /subject must be "payouts" or "credits"/);
    await bad({ ...good, subject: 'credits' }, /a credit rule's action must be "hold"/);
    await bad({ ...good, scope: 'planet' }, /scope must be/);
    await bad({ ...good, windowSeconds: 0 }, /windowSeconds must be/);
    await bad({ ...good, windowSeconds: 2_592_001 }, /windowSeconds must be/);
    await bad({ ...good, maxCount: undefined }, /a count rule names maxCount/);
    await bad({ ...good, maxAmount: '10.00' }, /a count rule names maxCount/);
    await bad({ ...good, measure: 'amount', maxCount: undefined, maxAmount: '-5' }, /maxAmount must be a positive amount/);
    await bad({ ...good, message: undefined }, /a refusing rule names the message/);
    await bad({ ...good, action: 'review' }, /a reviewing rule has no message/);
    await bad({ ...good, action: 'allow' }, /action must be "refuse", "review" or "hold"/);
    assert.equal((await call(stack.apiUrl, 'GET', '/auth/velocity-rules', session)).body.data.length, 1, 'nothing half-written');
  });

  it('changing rules needs set_money_rules on the dashboard and the velocity-rules:write scope for a key', async () => {
    const tenant = await newTenant('Velocity Access');
    const operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    const rule = { ...oneAnHour, scope: 'account', action: 'review' };
    assert.equal((await call(stack.apiUrl, 'POST', '/auth/velocity-rules', { cookie: operator.cookie, body: rule })).status, 403);
    assert.equal((await call(stack.apiUrl, 'GET', '/auth/velocity-rules', { cookie: operator.cookie })).status, 200);
    const reader = await call(stack.apiUrl, 'POST', '/auth/api-keys', {
      cookie: tenant.admin.cookie,
      body: { name: 'reader', scopes: ['read'] },
    });
    assert.equal(reader.status, 201, reader.text);
    const refused = await call(stack.apiUrl, 'POST', '/v1/velocity-rules', { apiKey: reader.body.Key, body: rule });
    assert.deepEqual([refused.status, refused.body.code], [403, 'missing_scope']);
    assert.match(refused.text, /velocity-rules:write/);
    const writer = await call(stack.apiUrl, 'POST', '/auth/api-keys', {
      cookie: tenant.admin.cookie,
      body: { name: 'rules', scopes: ['velocity-rules:write'] },
    });
    assert.equal((await call(stack.apiUrl, 'POST', '/v1/velocity-rules', { apiKey: writer.body.Key, body: rule })).status, 201);
  });
});
