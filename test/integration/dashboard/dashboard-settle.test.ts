import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { accountHolderName } from '../../../src/sandbox/names';
import { fundAccount, provisionAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { dashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

describe("the dashboard's settle checks the confirmed name and audits once", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  async function operatorWithFunds() {
    const tenant = await createTenant(stack);
    const operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    const settle = (body: Record<string, unknown>, key: string) =>
      call(stack.apiUrl, 'POST', `/auth/accounts/${account.AccountRef}/settle`, {
        cookie: operator.cookie,
        headers: { 'Idempotency-Key': key },
        body: { amount: '100.00', ...DESTINATION, ...body },
      });
    const audited = () =>
      stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'settlement.initiated' }).select('target_id', 'detail');
    const settlements = () =>
      stack.infra.db('settlements').where({ tenant_id: tenant.tenantId }).count<Array<{ count: string }>>('* as count');
    return { settle, audited, settlements };
  }

  it('refuses a name that is not the one a fresh lookup gives, paying and recording nothing', async () => {
    const { settle, audited, settlements } = await operatorWithFunds();
    const refused = await settle({ confirmedAccountName: 'SOMEONE ELSE ENTIRELY' }, randomUUID());
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.code, 'account_name_mismatch');
    assert.match(refused.body.error, new RegExp(`now named "${accountHolderName(DESTINATION.accountNumber)}"`));
    assert.equal(Number((await settlements())[0]!.count), 0);
    assert.deepEqual(await audited(), []);
  });

  it('pays the confirmed name (case and spacing aside) and writes one audit row, also when the page retries with its key', async () => {
    const { settle, audited, settlements } = await operatorWithFunds();
    const key = randomUUID();
    const confirmed = `  ${accountHolderName(DESTINATION.accountNumber).toLowerCase().replace(/ /g, '  ')} `;
    const accepted = await settle({ confirmedAccountName: confirmed }, key);
    assert.equal(accepted.status, 202, accepted.text);
    const replayed = await settle({ confirmedAccountName: confirmed }, key);
    assert.equal(replayed.status, 202, replayed.text);
    assert.equal(replayed.body.merchantTxRef, accepted.body.merchantTxRef);
    assert.equal(Number((await settlements())[0]!.count), 1);
    const rows = await audited();
    assert.equal(rows.length, 1, JSON.stringify(rows));
    assert.equal(rows[0]!.target_id, accepted.body.merchantTxRef);
    assert.equal(rows[0]!.detail.idempotencyKey, key);
  });

  it('writes no audit row when the settlement is refused (insufficient funds)', async () => {
    const { settle, audited } = await operatorWithFunds();
    const refused = await settle({ amount: '5000.00', confirmedAccountName: accountHolderName(DESTINATION.accountNumber) }, randomUUID());
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(await audited(), []);
  });
});
