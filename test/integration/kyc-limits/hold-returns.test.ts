import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { accountHolderName } from '../../../src/sandbox/names';
import { paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardUser, type DashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { magicAccountNumber } from '../../helpers/sandbox-values';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

describe('returning held money to the sender', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let operator: DashboardUser;
  before(async () => {
    stack = await startStack({ SETTLEMENT_RETRY_SCHEDULE: '200ms', SETTLEMENT_POLL_INTERVAL: '200ms' }, { worker: true });
    tenant = await createTenant(stack);
    operator = await dashboardUser(stack, tenant.tenantId, 'operator');
  });
  after(() => stack.close());

  const balance = async (account: ProvisionedAccount) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body;
  const returnHeld = (entryId: string, body: Record<string, unknown>) =>
    call(stack.apiUrl, 'POST', `/auth/holds/${entryId}/return`, {
      cookie: operator.cookie,
      body: { note: 'payer asked for it back', ...body },
    });
  const lookUpReturn = (entryId: string, body: Record<string, unknown> = {}) =>
    call(stack.apiUrl, 'POST', `/auth/holds/${entryId}/return/lookup`, { cookie: operator.cookie, body });
  const sandboxFaults = (body?: Record<string, unknown>) =>
    call(stack.sandboxUrl, body ? 'POST' : 'DELETE', '/sandbox/faults', body ? { body } : {});
  const returnsOf = (account: ProvisionedAccount) =>
    stack.infra.db('settlements').where({ account_id: account.ID }).select('merchant_tx_ref');
  const returnAudits = (entryId: string) =>
    stack.infra
      .db('audit_log')
      .where({ tenant_id: tenant.tenantId, action: 'kyc_hold.returned' })
      .whereRaw("detail->>'entryId' = ?", [entryId])
      .select('user_id', 'actor', 'detail');

  /** Nothing of a refused return was written: the money is still held, no settlement, no release, no audit. */
  async function nothingReturned(account: ProvisionedAccount, entryId: string) {
    const now = await balance(account);
    assert.deepEqual([now.ledgerBalance, now.heldBalance], ['70000.00', '20000.00']);
    assert.deepEqual(await returnsOf(account), []);
    assert.deepEqual(await reservationChangesOf(entryId), []);
    assert.deepEqual(await returnAudits(entryId), []);
  }
  /** The changes of the reservation holding a credit. */
  const reservationChangesOf = (entryId: string) =>
    stack.infra
      .db('ledger_reservation_changes as c')
      .join('ledger_reservations as r', 'r.id', 'c.reservation_id')
      .where({ 'r.owner_id': entryId })
      .select('c.outcome', 'c.amount', 'c.note');
  const verifyLedger = async () => (JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] }).problems;

  /**
   * A tier-1 customer paid 70,000.00 net by the payer the webhook names: 20,000.00 held over the single-credit limit.
   * The payer's name is by default the sandbox's name enquiry answer for their account number.
   */
  async function heldCredit(payer: { accountNumber: string; bankName: string; name?: string }, options: { confirm?: boolean } = {}) {
    const account = await provisionAccount(stack, tenant.apiKey);
    const senderName = payer.name ?? accountHolderName(payer.accountNumber);
    const paid = await sendProviderEvent(
      stack,
      paymentEvent({
        accountRef: account.AccountRef,
        amount: 70_050,
        fee: 50,
        senderName,
        senderAccountNumber: payer.accountNumber,
        senderBankName: payer.bankName,
      }),
    );
    assert.equal(paid.status, 200);
    const hold = await stack.infra.db('ledger_reservations').where({ account_id: account.ID }).first('owner_id as entry_id', 'amount');
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

  it('pays the held amount back to the payer’s bank found by name, when the provider names the account as the payment names the payer, as a settlement outside the daily limit, once', async () => {
    const accountName = accountHolderName('0123456789');
    // The payment writes the payer's name in another order and case, with an accent: the same name.
    const [surname, ...given] = accountName.split(' ');
    const payerName = `${given.join(' ').toLowerCase().replace('a', 'á')}, ${surname}`;
    const { account, entryId } = await heldCredit({ accountNumber: '0123456789', bankName: 'GUARANTY TRUST BANK', name: payerName });

    const lookedUp = await lookUpReturn(entryId);
    assert.equal(lookedUp.status, 200, lookedUp.text);
    assert.deepEqual(lookedUp.body, {
      entryId,
      accountRef: account.AccountRef,
      payerName,
      bankCode: '058',
      accountNumber: '0123456789',
      accountName,
      namesMatch: true,
    });

    const returned = await returnHeld(entryId, {});
    assert.equal(returned.status, 202, returned.text);
    assert.deepEqual(
      { ...returned.body, merchantTxRef: undefined },
      {
        entryId,
        accountRef: account.AccountRef,
        payerName,
        returned: '20000.00',
        merchantTxRef: undefined,
        bankCode: '058',
        accountNumber: '0123456789',
        accountName,
        nameCheck: 'matched',
      },
    );
    const accepted = await balance(account);
    assert.deepEqual([accepted.ledgerBalance, accepted.heldBalance], ['50000.00', '0.00']);
    const group = (await stack.infra.db('ledger_entries').where({ id: entryId }).first('transaction_group_id')).transaction_group_id;
    const told = await stack.infra
      .db('tenant_events')
      .where({ tenant_id: tenant.tenantId })
      .whereIn('subject', [account.CustomerID, returned.body.merchantTxRef])
      .whereIn('type', ['kyc.hold_returned', 'settlement.created'])
      .orderBy('type');
    assert.deepEqual(
      told.map((event: { type: string; subject: string; sequence: number; data: Record<string, unknown> }) => [
        event.type,
        event.subject,
        event.sequence,
        event.data,
      ]),
      [
        [
          'kyc.hold_returned',
          account.CustomerID,
          1,
          {
            customerId: account.CustomerID,
            transactionGroupId: group,
            accountRef: account.AccountRef,
            amount: '20000.00',
            currency: 'NGN',
            merchantTxRef: returned.body.merchantTxRef,
          },
        ],
        [
          'settlement.created',
          returned.body.merchantTxRef,
          1,
          {
            merchantTxRef: returned.body.merchantTxRef,
            accountRef: account.AccountRef,
            amount: '20000.00',
            currency: 'NGN',
            status: 'pending',
          },
        ],
      ],
    );

    const transfer = await transferEnds(returned.body.merchantTxRef, 'success');
    assert.deepEqual([transfer.amount, transfer.bankCode, transfer.accountNumber], ['20000.00', '058', '0123456789']);
    const settlement = await stack.infra
      .db('settlements')
      .where({ merchant_tx_ref: returned.body.merchantTxRef })
      .first('narration', 'account_name');
    assert.deepEqual([settlement.narration, settlement.account_name], ['Return to sender', accountName]);
    const paid = await balance(account);
    assert.deepEqual([paid.ledgerBalance, paid.heldBalance], ['50000.00', '0.00']);
    const [posted] = await reservationChangesOf(entryId);
    assert.deepEqual([posted.outcome, posted.amount, posted.note], ['posted', '2000000', 'payer asked for it back']);
    const [audit] = await returnAudits(entryId);
    assert.deepEqual(
      [
        audit.detail.amount,
        audit.detail.merchantTxRef,
        audit.detail.bankCode,
        audit.detail.senderName,
        audit.detail.accountName,
        audit.detail.nameCheck,
      ],
      ['20000.00', returned.body.merchantTxRef, '058', payerName, accountName, 'matched'],
    );

    const again = await returnHeld(entryId, {});
    assert.deepEqual([again.status, again.body.error], [409, 'the held money of this credit was already returned to the sender']);
    const release2 = await call(stack.apiUrl, 'POST', `/auth/holds/${entryId}/release`, {
      cookie: operator.cookie,
      body: { note: 'after all' },
    });
    assert.equal(release2.status, 409);

    // The return did not use the day's payout limit: the customer may still pay out the whole tier-1 limit today.
    const settle = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '50000.00', bankCode: '058', accountNumber: '0123456789' },
    });
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

  it('refuses with 409 naming both names when the provider names the payer’s account otherwise, debiting and releasing nothing', async () => {
    const accountName = accountHolderName('0123456789');
    const { account, entryId } = await heldCredit({ accountNumber: '0123456789', bankName: 'Guaranty Trust Bank', name: 'TOLU ADEWALE' });

    const lookedUp = await lookUpReturn(entryId);
    assert.deepEqual([lookedUp.body.payerName, lookedUp.body.accountName, lookedUp.body.namesMatch], ['TOLU ADEWALE', accountName, false]);

    const refused = await returnHeld(entryId, {});
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.code, 'payer_name_mismatch');
    assert.ok(refused.body.error.includes(`"${accountName}"`) && refused.body.error.includes('"TOLU ADEWALE"'), refused.body.error);
    await nothingReturned(account, entryId);
  });

  it('pays the looked-up name when the operator confirms it, audited with the operator and both names; the workflow pays that name without looking it up again', async () => {
    const accountName = accountHolderName('0123456789');
    const { account, entryId } = await heldCredit({ accountNumber: '0123456789', bankName: 'Guaranty Trust Bank', name: 'TOLU ADEWALE' });

    // A confirmation of another name than the provider's now is refused, naming all three.
    const stale = await returnHeld(entryId, { confirmedAccountName: 'SOMEONE ELSE' });
    assert.equal(stale.status, 409, stale.text);
    assert.equal(stale.body.code, 'account_name_mismatch');
    for (const name of [accountName, 'SOMEONE ELSE', 'TOLU ADEWALE']) assert.ok(stale.body.error.includes(`"${name}"`), stale.body.error);
    await nothingReturned(account, entryId);

    const returned = await returnHeld(entryId, { confirmedAccountName: accountName });
    assert.equal(returned.status, 202, returned.text);
    assert.deepEqual(
      [returned.body.payerName, returned.body.accountName, returned.body.nameCheck],
      ['TOLU ADEWALE', accountName, 'operator_confirmed'],
    );
    const settlement = await stack.infra.db('settlements').where({ merchant_tx_ref: returned.body.merchantTxRef }).first('account_name');
    assert.equal(settlement.account_name, accountName);
    // Name enquiries fail from now on: the settlement still pays, under the name it was made with.
    await sandboxFaults({ failureRate: 1, routes: ['/v1/transfers/bank/lookup'] });
    try {
      await transferEnds(returned.body.merchantTxRef, 'success');
    } finally {
      await sandboxFaults();
    }
    const after = await balance(account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['50000.00', '0.00']);

    const audits = await returnAudits(entryId);
    assert.equal(audits.length, 1);
    assert.deepEqual([audits[0].user_id, audits[0].actor], [operator.userId, operator.email]);
    assert.deepEqual(
      [
        audits[0].detail.senderName,
        audits[0].detail.accountName,
        audits[0].detail.confirmedAccountName,
        audits[0].detail.nameCheck,
        audits[0].detail.merchantTxRef,
      ],
      ['TOLU ADEWALE', accountName, accountName, 'operator_confirmed', returned.body.merchantTxRef],
    );
  });

  it('answers 422 when the provider has no such account, and 503 with Retry-After when its name enquiry stays down, debiting and releasing nothing', async () => {
    const missing = await heldCredit({
      accountNumber: magicAccountNumber('nameNotFound', '000000'),
      bankName: 'Zenith Bank',
      name: 'TOLU ADEWALE',
    });
    const notFound = await returnHeld(missing.entryId, {});
    assert.equal(notFound.status, 422, notFound.text);
    assert.equal(notFound.body.code, 'payer_account_not_found');
    assert.match(notFound.body.error, /no account 0000009999 at bank 057/);
    assert.equal((await lookUpReturn(missing.entryId)).status, 422);
    await nothingReturned(missing.account, missing.entryId);

    const { account, entryId } = await heldCredit({ accountNumber: '0123456789', bankName: 'Guaranty Trust Bank' });
    await sandboxFaults({ failureRate: 1, routes: ['/v1/transfers/bank/lookup'] });
    try {
      const down = await returnHeld(entryId, {});
      assert.equal(down.status, 503, down.text);
      assert.deepEqual(down.body.code, 'provider_unavailable');
      assert.ok(Number(down.headers.get('retry-after')) >= 1, 'Retry-After in seconds');
    } finally {
      await sandboxFaults();
    }
    await nothingReturned(account, entryId);
    assert.equal((await returnHeld(entryId, {})).status, 202);
  });

  it('refuses to return the held part of a credit the provider has not confirmed yet', async () => {
    const { account, entryId } = await heldCredit({ accountNumber: '0123456789', bankName: 'Zenith Bank' }, { confirm: false });
    const refused = await returnHeld(entryId, {});
    assert.equal(refused.status, 409);
    assert.equal((await balance(account)).heldBalance, '20000.00');
  });

  it('holds the money again when the return’s payout fails for good', async () => {
    const { account, entryId } = await heldCredit({
      accountNumber: magicAccountNumber('failsEverySubmission', '000000'),
      bankName: 'Zenith Bank',
    });
    const returned = await returnHeld(entryId, {});
    assert.equal(returned.status, 202, returned.text);
    await transferEnds(returned.body.merchantTxRef, 'failed');

    const after = await balance(account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['70000.00', '20000.00']);
    const queue = await call(stack.apiUrl, 'GET', '/auth/holds', { cookie: operator.cookie });
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
