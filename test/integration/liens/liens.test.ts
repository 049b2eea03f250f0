import assert from 'node:assert/strict';
import { fundAccount, provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

describe('liens: money an operator or the tenant sets aside on an account', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const balance = async (account: ProvisionedAccount) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body;
  const settle = (account: ProvisionedAccount, amount: string) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, { apiKey: tenant.apiKey, body: { amount, ...DESTINATION } });

  it('an account spends its money less the lien until the lien is lifted; placing and lifting are audited', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 1_000_00n);
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const placed = await call(stack.apiUrl, 'POST', `/auth/accounts/${account.AccountRef}/liens`, {
      cookie: operator,
      body: { amount: '300.00', reason: 'fraud_review', note: 'case 42' },
    });
    assert.equal(placed.status, 201);
    assert.deepEqual([(await balance(account)).heldBalance, (await balance(account)).reserved.lien], ['300.00', '300.00']);

    const refused = await settle(account, '800.00');
    assert.deepEqual([refused.status, refused.body.error], [400, 'insufficient funds']);
    assert.equal((await settle(account, '700.00')).status, 202);
    assert.deepEqual([(await settle(account, '0.01')).status], [400], 'what is left is the lien');

    const lifted = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/liens/${placed.body.lienId}/lift`, {
      apiKey: tenant.apiKey,
    });
    assert.deepEqual([lifted.status, lifted.body.released], [200, '300.00']);
    assert.deepEqual([(await balance(account)).heldBalance, (await balance(account)).reserved.lien], ['0.00', '0.00']);
    assert.equal((await settle(account, '300.00')).status, 202);
    const liftedAgain = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/liens/${placed.body.lienId}/lift`, {
      apiKey: tenant.apiKey,
    });
    assert.equal(liftedAgain.status, 409);

    const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, target_type: 'lien' }).orderBy('id');
    assert.deepEqual(
      audit.map((row) => [row.action, row.target_id, row.actor === 'API key', row.detail.reason ?? row.detail.released]),
      [
        ['lien.placed', placed.body.lienId, false, 'fraud_review'],
        ['lien.lifted', placed.body.lienId, true, '300.00'],
      ],
    );
  });
});
