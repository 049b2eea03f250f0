import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../helpers/fixtures';
import { call, eventually } from '../helpers/http';
import { dashboardSession } from '../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../helpers/stack';

const runCli = (...args: string[]) => promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../src/main/cli.js'), ...args], { env: process.env });

describe('returning held money to the sender', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let operator: string;
  before(async () => {
    stack = await startStack({ SETTLEMENT_RETRY_SCHEDULE: '200ms', SETTLEMENT_POLL_INTERVAL: '200ms' }, { worker: true });
    tenant = await createTenant(stack);
    operator = await dashboardSession(stack, tenant.tenantId, 'operator');
  });
  after(() => stack.close());

  const balance = async (account: ProvisionedAccount) => (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body;
  const returnHeld = (entryId: string, body: Record<string, unknown>) =>
    call(stack.apiUrl, 'POST', `/auth/holds/${entryId}/return`, { cookie: operator, body: { note: 'payer asked for it back', ...body } });
  const verifyLedger = async () => (JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] }).problems;

  /** A tier-1 customer paid 70,000.00 net by the payer the webhook names: 20,000.00 held over the single-credit limit. */
  async function heldCredit(payer: { accountNumber: string; bankName: string }, options: { confirm?: boolean } = {}) {
    const account = await provisionAccount(stack, tenant.apiKey);
    const paid = await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 70_050, fee: 50, senderAccountNumber: payer.accountNumber, senderBankName: payer.bankName }));
    assert.equal(paid.status, 200);
    const hold = await stack.infra.db('ledger_holds').where({ account_id: account.ID }).first('entry_id', 'amount');
    assert.equal(hold.amount, '2000000');
    if (options.confirm !== false) await stack.infra.db.transaction((trx) => stack.services.postingEngine.confirm(trx, hold.entry_id));
    return { account, entryId: hold.entry_id as string };
  }

  async function transferEnds(merchantTxRef: string, status: string) {
    return eventually(
      async () => {
        const transfer = await call(stack.apiUrl, 'GET', `/v1/transfers/${merchantTxRef}`, { apiKey: tenant.apiKey });
        return transfer.body.status === status ? transfer.body : null;
      },
      { what: `transfer ${status}` },
    );
  }

  it('pays the held amount back to the payer’s bank found by name, as a settlement outside the daily limit, once', async () => {
    const { account, entryId } = await heldCredit({ accountNumber: '0123456789', bankName: 'GUARANTY TRUST BANK' });

    const returned = await returnHeld(entryId, {});
    assert.equal(returned.status, 202, returned.text);
    assert.deepEqual(
      { ...returned.body, merchantTxRef: undefined },
      { entryId, accountRef: account.AccountRef, returned: '20000.00', merchantTxRef: undefined, bankCode: '058', accountNumber: '0123456789' },
    );
    const accepted = await balance(account);
    assert.deepEqual([accepted.ledgerBalance, accepted.heldBalance], ['50000.00', '0.00']);

    const transfer = await transferEnds(returned.body.merchantTxRef, 'success');
    assert.deepEqual([transfer.amount, transfer.bankCode, transfer.accountNumber], ['20000.00', '058', '0123456789']);
    const settlement = await stack.infra.db('settlements').where({ merchant_tx_ref: returned.body.merchantTxRef }).first('narration');
    assert.equal(settlement.narration, 'Return to sender');
    const paid = await balance(account);
    assert.deepEqual([paid.ledgerBalance, paid.heldBalance], ['50000.00', '0.00']);
    const [release] = await stack.infra.db('ledger_hold_releases').where({ entry_id: entryId }).select('reason', 'amount', 'note');
    assert.deepEqual([release.reason, release.amount, release.note], ['returned', '2000000', 'payer asked for it back']);
    const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'kyc_hold.returned' }).first('detail');
    assert.deepEqual([audit.detail.amount, audit.detail.merchantTxRef, audit.detail.bankCode], ['20000.00', returned.body.merchantTxRef, '058']);

    const again = await returnHeld(entryId, {});
    assert.deepEqual([again.status, again.body.error], [409, 'the held money of this credit was already returned to the sender']);
    const release2 = await call(stack.apiUrl, 'POST', `/auth/holds/${entryId}/release`, { cookie: operator, body: { note: 'after all' } });
    assert.equal(release2.status, 409);

    // The return did not use the day's payout limit: the customer may still pay out the whole tier-1 limit today.
    const settle = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, { apiKey: tenant.apiKey, body: { amount: '50000.00', bankCode: '058', accountNumber: '0123456789' } });
    assert.equal(settle.status, 202, settle.text);
    assert.deepEqual(await verifyLedger(), []);
  });

  it('asks the operator for the bank code when the payment’s bank name matches several banks or none, naming the candidates', async () => {
    const { account, entryId } = await heldCredit({ accountNumber: '0123456789', bankName: 'First' });
    const ambiguous = await returnHeld(entryId, {});
    assert.equal(ambiguous.status, 400);
    assert.equal(ambiguous.body.code, 'bank_code_required');
    assert.match(ambiguous.body.error, /011 \(First Bank of Nigeria\), 214 \(First City Monument Bank\)/);
    assert.equal((await balance(account)).heldBalance, '20000.00');

    const chosen = await returnHeld(entryId, { bankCode: '214' });
    assert.deepEqual([chosen.status, chosen.body.bankCode], [202, '214']);
    await transferEnds(chosen.body.merchantTxRef, 'success');

    const unknown = await heldCredit({ accountNumber: '0123456789', bankName: 'Sandbox Bank' });
    const none = await returnHeld(unknown.entryId, {});
    assert.equal(none.status, 400);
    assert.match(none.body.error, /matches no bank in the bank list/);
  });

  it('refuses to return the held part of a credit the provider has not confirmed yet', async () => {
    const { account, entryId } = await heldCredit({ accountNumber: '0123456789', bankName: 'Zenith Bank' }, { confirm: false });
    const refused = await returnHeld(entryId, {});
    assert.equal(refused.status, 409);
    assert.equal((await balance(account)).heldBalance, '20000.00');
  });

  it('holds the money again when the return’s payout fails for good', async () => {
    const { account, entryId } = await heldCredit({ accountNumber: '0000009999', bankName: 'Zenith Bank' });
    const returned = await returnHeld(entryId, {});
    assert.equal(returned.status, 202, returned.text);
    await transferEnds(returned.body.merchantTxRef, 'failed');

    const after = await balance(account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['70000.00', '20000.00']);
    const queue = await call(stack.apiUrl, 'GET', '/auth/holds', { cookie: operator });
    const row = queue.body.holds.find((hold: { accountRef: string }) => hold.accountRef === account.AccountRef);
    assert.deepEqual([row.held, row.limit], ['20000.00', 'single_credit']);
    const tooMuch = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '50000.01', bankCode: '058', accountNumber: '0123456789' },
    });
    assert.equal(tooMuch.status, 400);
    assert.deepEqual(await verifyLedger(), []);
  });
});
