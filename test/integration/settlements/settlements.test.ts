import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { fundAccount, provisionAccount, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { magicAccountNumber } from '../../helpers/sandbox-values';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

describe('settlement requests', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const settle = (
    account: ProvisionedAccount,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
    apiKey = tenant.apiKey,
  ) => call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, { apiKey, body, headers });

  async function available(account: ProvisionedAccount): Promise<string> {
    return (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body.availableBalance;
  }

  it('accepts a settlement: 202 pending, a provisional debit, and the transfer readable by its merchantTxRef', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    const response = await settle(account, { amount: '250.50', ...DESTINATION, narration: 'payout 1', merchantTxRef: 'caller-chosen' });
    assert.equal(response.status, 202);
    assert.match(response.body.merchantTxRef, /^mtx_[a-z0-9]{20}$/);
    assert.deepEqual(
      { ...response.body, merchantTxRef: undefined },
      { merchantTxRef: undefined, status: 'pending', amount: '250.50', currency: 'NGN', accountRef: account.AccountRef },
    );
    assert.equal(await available(account), '749.50');
    const page = await statement(stack, tenant.apiKey, account.AccountRef);
    const debit = page.body.lines.at(-1).entry;
    assert.deepEqual(
      [debit.Direction, debit.Amount, debit.Status, debit.Narration, debit.ProviderTxnRef],
      ['debit', '250.50', 'provisional', 'payout 1', response.body.merchantTxRef],
    );
    const transfer = await call(stack.apiUrl, 'GET', `/v1/transfers/${response.body.merchantTxRef}`, { apiKey: tenant.apiKey });
    assert.equal(transfer.status, 200);
    assert.deepEqual(
      {
        status: transfer.body.status,
        amount: transfer.body.amount,
        bankCode: transfer.body.bankCode,
        accountNumber: transfer.body.accountNumber,
        attemptCount: transfer.body.attemptCount,
      },
      { status: 'pending', amount: '250.50', bankCode: '058', accountNumber: '0123456789', attemptCount: 0 },
    );
    const other = await createTenant(stack, 'Other');
    const foreign = await call(stack.apiUrl, 'GET', `/v1/transfers/${response.body.merchantTxRef}`, { apiKey: other.apiKey });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error, 'transfer not found');
  });

  it('50 concurrent settles of 100.00 on 1,000.00 available: exactly 10 accepted, 40 insufficient funds', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    const responses = await Promise.all(Array.from({ length: 50 }, () => settle(account, { amount: '100.00', ...DESTINATION })));
    const accepted = responses.filter((response) => response.status === 202);
    const refused = responses.filter((response) => response.status === 400);
    assert.equal(accepted.length, 10);
    assert.equal(refused.length, 40);
    assert.ok(refused.every((response) => response.body.error === 'insufficient funds'));
    assert.equal(await available(account), '0.00');
  });

  it("judges the customer's status on its locked row: a suspension committed while the settle waits for the lock refuses it, writing nothing", async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    const db = stack.infra.db;
    // The suspension holds the customer's row (uncommitted) while the settle starts: its checks read the customer active.
    const suspension = await db.transaction();
    let pending: ReturnType<typeof settle> | undefined;
    try {
      await suspension('customers').where({ id: account.CustomerID }).update({ status: 'suspended' });
      pending = settle(account, { amount: '100.00', ...DESTINATION });
      await eventually(
        async () => {
          // pg_stat_activity keeps only the text's first kilobyte (track_activity_query_size): the settle's statement is
          // found by its own opening CTEs (its Idempotency-Key claim), not by the ledger's, which come later in it.
          const { rows } = await db.raw(
            `SELECT 1 FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO idempotency_keys%'`,
          );
          return rows.length > 0;
        },
        { what: "the settle's statement waiting for the customer's row" },
      );
      await suspension.commit();
    } catch (error) {
      await suspension.rollback();
      throw error;
    }
    const refused = await pending;
    assert.equal(refused.status, 403, refused.text);
    assert.deepEqual([refused.body.error, refused.body.code], ['customer suspended', 'forbidden']);
    assert.equal(await available(account), '1000.00');
    assert.deepEqual(await db('settlements').where({ account_id: account.ID }).select('id'), []);
    assert.equal((await db('ledger_entries').where({ account_id: account.ID, kind: 'settlement' }).select('id')).length, 0);
  });

  it('spends the ledger balance, as SPEC.md says: a provisional credit can be settled', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 50_000n, 'provisional');
    const response = await settle(account, { amount: '100.00', ...DESTINATION });
    assert.equal(response.status, 202);
    const tooMuch = await settle(account, { amount: '400.01', ...DESTINATION });
    assert.deepEqual([tooMuch.status, tooMuch.body.error], [400, 'insufficient funds']);
  });

  it('a reversed provisional credit that was spent leaves the account in deficit: flagged, listed, counted by ledger:verify, settling nothing until back above zero', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const credit = await fundAccount(stack, account.ID, 50_000n, 'provisional');
    assert.equal((await settle(account, { amount: '100.00', ...DESTINATION })).status, 202);
    await stack.infra.db.transaction((trx) => stack.services.postingEngine.reverse(trx, credit.id, 'provider did not confirm'));

    const balance = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey });
    assert.deepEqual([balance.body.ledgerBalance, balance.body.inDeficit], ['-100.00', true]);
    const view = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}`, { apiKey: tenant.apiKey });
    assert.equal(view.body.InDeficit, true);
    assert.ok(view.body.DeficitSince);
    const refused = await settle(account, { amount: '1.00', ...DESTINATION });
    assert.deepEqual([refused.status, refused.body.error], [400, 'insufficient funds']);

    const cookie = await dashboardSession(stack, tenant.tenantId);
    const listed = await call(stack.apiUrl, 'GET', '/auth/deficit-accounts', { cookie });
    assert.equal(listed.status, 200);
    const row = listed.body.accounts.find((entry: { AccountRef: string }) => entry.AccountRef === account.AccountRef);
    assert.equal(row?.LedgerBalance, '-100.00');
    const verify = await runCli('ledger:verify', '--json');
    const report = JSON.parse(verify.stdout) as { problems: unknown[]; deficits: Array<{ accountRef: string; balance: string }> };
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.deficits.find((deficit) => deficit.accountRef === account.AccountRef)?.balance, '-100.00');

    await fundAccount(stack, account.ID, 15_000n);
    const after = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}`, { apiKey: tenant.apiKey });
    assert.deepEqual([after.body.InDeficit, after.body.DeficitSince], [false, null]);
    assert.equal((await settle(account, { amount: '50.00', ...DESTINATION })).status, 202);
  });

  it('replays an Idempotency-Key with the same settlement, and answers 409 for a different body', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => settle(account, { amount: '100.00', ...DESTINATION }, { 'Idempotency-Key': key })),
    );
    assert.ok(responses.every((response) => response.status === 202));
    assert.equal(new Set(responses.map((response) => response.body.merchantTxRef)).size, 1);
    assert.equal(await available(account), '900.00');
    const different = await settle(account, { amount: '200.00', ...DESTINATION }, { 'Idempotency-Key': key });
    assert.equal(different.status, 409);
  });

  it("answers SPEC's messages for bad input, unknown accounts and other tenants' accounts", async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    for (const amount of ['0', '0.00', '-5', '1.234', 'abc', '', 100, null, '1e3', '100000000.01']) {
      const response = await settle(account, { amount, ...DESTINATION });
      assert.equal(response.status, 400, String(amount));
      assert.deepEqual({ error: response.body.error, code: response.body.code }, { error: 'invalid amount', code: 'validation_error' });
    }
    const missing = await settle(account, DESTINATION);
    assert.equal(missing.body.error, 'invalid amount');
    const shortNumber = await settle(account, { amount: '1.00', bankCode: '058', accountNumber: '12345' });
    assert.equal(shortNumber.body.error, 'accountNumber must be exactly 10 digits');
    const unknownBank = await settle(account, { amount: '1.00', bankCode: '999', accountNumber: '0123456789' });
    assert.equal(unknownBank.status, 400);
    assert.equal(unknownBank.body.error, 'invalid bank code');
    const unknownAccount = await call(stack.apiUrl, 'POST', '/v1/accounts/va_nobody_000000000000/settle', {
      apiKey: tenant.apiKey,
      body: { amount: '1.00', ...DESTINATION },
    });
    assert.equal(unknownAccount.status, 404);
    assert.equal(unknownAccount.body.error, 'account not found');
    const other = await createTenant(stack, 'Other');
    const foreign = await settle(account, { amount: '1.00', ...DESTINATION }, {}, other.apiKey);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error, 'account not found');
    assert.equal(await available(account), '1000.00');
  });

  it('looks a destination account up, and lists the banks', async () => {
    const found = await call(stack.apiUrl, 'POST', '/v1/transfers/lookup', { apiKey: tenant.apiKey, body: DESTINATION });
    assert.equal(found.status, 200);
    assert.equal(found.body.AccountNumber, '0123456789');
    assert.ok(found.body.AccountName.length > 0);
    const missing = await call(stack.apiUrl, 'POST', '/v1/transfers/lookup', {
      apiKey: tenant.apiKey,
      body: { bankCode: '058', accountNumber: magicAccountNumber('nameNotFound', '000000') },
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, 'bank account not found');
    const badBank = await call(stack.apiUrl, 'POST', '/v1/transfers/lookup', {
      apiKey: tenant.apiKey,
      body: { bankCode: '12', accountNumber: '0123456789' },
    });
    assert.equal(badBank.body.error, 'invalid bank code');
    const banks = await call(stack.apiUrl, 'GET', '/v1/transfers/banks', { apiKey: tenant.apiKey });
    assert.ok(banks.body.banks.length >= 20);
    assert.deepEqual(
      banks.body.banks.find((bank: { Code: string }) => bank.Code === '044'),
      { Code: '044', Name: 'Access Bank' },
    );
  });
});

describe('settlement funds: SETTLEMENT_FUNDS=available', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack({ SETTLEMENT_FUNDS: 'available' });
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  it('cannot spend a provisional (unconfirmed) credit', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 50_000n, 'provisional');
    const response = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '100.00', ...DESTINATION },
    });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'insufficient funds');
  });
});

describe('settle on an unknown account', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  it('answers 404 account not found before checking the bank code, and without calling the provider', async () => {
    const tenant = await createTenant(stack);
    const body = { amount: '1.00', bankCode: '999', accountNumber: '0123456789' };
    const unknownBank = await call(stack.apiUrl, 'POST', '/v1/accounts/va_nobody_000000000000/settle', { apiKey: tenant.apiKey, body });
    assert.deepEqual([unknownBank.status, unknownBank.body.error], [404, 'account not found']);
    const knownBank = await call(stack.apiUrl, 'POST', '/v1/accounts/va_nobody_000000000000/settle', {
      apiKey: tenant.apiKey,
      body: { ...body, bankCode: '058' },
    });
    assert.deepEqual([knownBank.status, knownBank.body.error], [404, 'account not found']);
    // The bank list is the provider's: a fresh stack that had to fetch it would have taken a token.
    const tokens = await call(stack.sandboxUrl, 'GET', '/sandbox/tokens');
    assert.equal(tokens.body.issued, 0);
  });
});

describe('settlement on the dev server', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack(
      {
        SETTLEMENT_RETRY_SCHEDULE: '200ms',
        SETTLEMENT_POLL_INTERVAL: '200ms',
        SETTLEMENT_REFUND_WATCH: '1s',
        SANDBOX_REFUND_DELAY: '300ms',
      },
      { worker: true },
    );
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  async function settleAndWait(accountNumber: string, finalStatus: string) {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    const response = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '400.00', bankCode: '058', accountNumber },
    });
    assert.equal(response.status, 202);
    const ref = response.body.merchantTxRef as string;
    const transfer = await eventually(
      async () => {
        const current = await call(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey });
        return current.body.status === finalStatus ? current.body : null;
      },
      { what: `status ${finalStatus}` },
    );
    const payouts = (await call(stack.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body.payouts as number;
    const balance = (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body
      .availableBalance as string;
    return { transfer, payouts, balance, account };
  }

  it('pays out once and confirms the debit', async () => {
    const { transfer, payouts, balance } = await settleAndWait('0123456789', 'success');
    assert.equal(transfer.attemptCount, 1);
    assert.equal(transfer.providerFee, '10.00');
    assert.equal(payouts, 1);
    assert.equal(balance, '600.00');
  });

  it('fails after five failed attempts and restores the balance (1111)', async () => {
    const { transfer, payouts, balance, account } = await settleAndWait(magicAccountNumber('failsEverySubmission', '000000'), 'failed');
    assert.equal(transfer.attemptCount, 5);
    assert.equal(payouts, 0);
    assert.equal(balance, '1000.00');
    const lines = (await statement(stack, tenant.apiKey, account.AccountRef)).body.lines;
    assert.deepEqual(
      lines.map((line: { entry: { Kind: string; Direction: string; Status: string } }) => [
        line.entry.Kind,
        line.entry.Direction,
        line.entry.Status,
      ]),
      [
        ['payment', 'credit', 'confirmed'],
        ['settlement', 'debit', 'reversed'],
        ['reversal', 'credit', 'confirmed'],
      ],
    );
  });

  it('is refunded after success when the provider reverses the transfer (3333)', async () => {
    const { payouts, balance } = await settleAndWait(magicAccountNumber('refundedAfterSuccess', '000000'), 'refunded');
    assert.equal(payouts, 1);
    assert.equal(balance, '1000.00');
  });

  it('ends a transfer to an account the provider cannot find as failed, without paying (9999)', async () => {
    const { transfer, payouts, balance } = await settleAndWait(magicAccountNumber('nameNotFound', '000000'), 'failed');
    assert.equal(transfer.attemptCount, 0);
    assert.equal(payouts, 0);
    assert.equal(balance, '1000.00');
  });
});
