import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, statement, type ProvisionedAccount } from '../helpers/fixtures';
import { call } from '../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../helpers/stack';

const runCli = (...args: string[]) => promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../src/main/cli.js'), ...args], { env: process.env });

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };
const VERIFIED_NIN = '12345678901';

describe('KYC tier limits', () => {
  let stack: Stack;
  let tenant: TestTenant;
  /** A tenant whose partner bank sets no daily payout limit for tier 1 (the single-credit and balance limits are the defaults). */
  let noDailyLimit: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    noDailyLimit = await createTenant(stack, 'No Daily Limit');
    await stack.infra.db('kyc_tier_limits').insert({ tenant_id: noDailyLimit.tenantId, tier: 1, single_credit: 5_000_000, balance: 30_000_000, daily_debits: null });
  });
  after(() => stack.close());

  const settle = (account: ProvisionedAccount, apiKey: string, amount: string) => call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, { apiKey, body: { amount, ...DESTINATION } });
  const balance = async (account: ProvisionedAccount, apiKey: string) => (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey })).body;
  /** A payment whose net amount (after the provider's fee) is `net` naira. */
  const pay = (account: ProvisionedAccount, net: number) => sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: net + 50, fee: 50 }));

  async function verifyLedger(): Promise<unknown[]> {
    return (JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] }).problems;
  }

  it('a tier-1 customer receiving 120,000.00 in two payments: both credited in full, 20,000.00 held and unspendable, released on tier-2 approval', async () => {
    const account = await provisionAccount(stack, noDailyLimit.apiKey);
    for (const _ of [1, 2]) assert.equal((await pay(account, 60_000)).status, 200);

    const page = await statement(stack, noDailyLimit.apiKey, account.AccountRef);
    assert.deepEqual(
      page.body.lines.map((line: { entry: { Amount: string; Status: string } }) => [line.entry.Amount, line.entry.Status]),
      [
        ['60000.00', 'provisional'],
        ['60000.00', 'provisional'],
      ],
    );
    const held = await balance(account, noDailyLimit.apiKey);
    assert.deepEqual([held.ledgerBalance, held.heldBalance], ['120000.00', '20000.00']);
    const holds = await stack.infra.db('ledger_holds').where({ account_id: account.ID }).orderBy('created_at').select('amount', 'limit_kind', 'limit_amount', 'tier');
    assert.deepEqual(
      holds.map((hold) => [hold.amount, hold.limit_kind, hold.limit_amount, hold.tier]),
      [
        ['1000000', 'single_credit', '5000000', 1],
        ['1000000', 'single_credit', '5000000', 1],
      ],
    );

    const tooMuch = await settle(account, noDailyLimit.apiKey, '100000.01');
    assert.deepEqual([tooMuch.status, tooMuch.body.error], [400, 'insufficient funds']);
    assert.equal((await settle(account, noDailyLimit.apiKey, '100000.00')).status, 202);
    assert.deepEqual([(await settle(account, noDailyLimit.apiKey, '0.01')).status], [400]);

    const kyc = await call(stack.apiUrl, 'POST', `/v1/customers/${account.CustomerID}/kyc`, { apiKey: noDailyLimit.apiKey, body: { nin: VERIFIED_NIN } });
    assert.equal(kyc.body.KYCTier, 2);
    const released = await balance(account, noDailyLimit.apiKey);
    assert.deepEqual([released.ledgerBalance, released.heldBalance], ['20000.00', '0.00']);
    const releases = await stack.infra.db('ledger_hold_releases').where({ account_id: account.ID }).select('amount', 'reason');
    assert.deepEqual(
      releases.map((release) => [release.amount, release.reason]),
      [
        ['1000000', 'tier_raised'],
        ['1000000', 'tier_raised'],
      ],
    );
    assert.equal((await settle(account, noDailyLimit.apiKey, '20000.00')).status, 202);
    assert.deepEqual(await verifyLedger(), []);
  });

  it('holds the part of a credit that takes the unheld balance past the tier balance limit', async () => {
    const account = await provisionAccount(stack, noDailyLimit.apiKey);
    for (const kobo of [5_000_000n, 5_000_000n, 5_000_000n, 5_000_000n, 5_000_000n, 4_000_000n]) await fundAccount(stack, account.ID, kobo);
    assert.equal((await pay(account, 30_000)).status, 200);
    const after = await balance(account, noDailyLimit.apiKey);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['320000.00', '20000.00']);
    const [hold] = await stack.infra.db('ledger_holds').where({ account_id: account.ID }).select('amount', 'limit_kind', 'limit_amount');
    assert.deepEqual([hold.amount, hold.limit_kind, hold.limit_amount], ['2000000', 'balance', '30000000']);
  });

  it('refuses a tier-1 payout that would take the day past the daily limit, naming the limit', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 4_000_000n);
    await fundAccount(stack, account.ID, 4_000_000n);
    assert.equal((await settle(account, tenant.apiKey, '30000.00')).status, 202);
    const refused = await settle(account, tenant.apiKey, '20000.01');
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'daily_debit_limit_exceeded');
    assert.equal(refused.body.error, 'amount exceeds the tier 1 daily payout limit of 50000.00 (20000.00 left today, Africa/Lagos)');
    assert.equal((await settle(account, tenant.apiKey, '20000.00')).status, 202);
    assert.deepEqual((await balance(account, tenant.apiKey)).ledgerBalance, '30000.00');
  });

  it('50 concurrent credits and settles to one account: held, available and ledger balances agree with the limits and ledger:verify', async () => {
    const account = await provisionAccount(stack, noDailyLimit.apiKey);
    const work = Array.from({ length: 50 }, (_, index) => (index % 2 === 0 ? pay(account, 20_000) : settle(account, noDailyLimit.apiKey, '1000.00')));
    const responses = await Promise.all(work);
    const credits = responses.filter((_, index) => index % 2 === 0);
    const settles = responses.filter((_, index) => index % 2 === 1);
    assert.ok(credits.every((response) => response.status === 200));
    assert.ok(settles.every((response) => response.status === 202 || (response.status === 400 && response.body.error === 'insufficient funds')));
    const accepted = settles.filter((response) => response.status === 202).length;

    const row = await stack.infra.db('virtual_accounts').where({ id: account.ID }).first('ledger_balance', 'held_balance');
    const ledger = BigInt(row.ledger_balance);
    const held = BigInt(row.held_balance);
    assert.equal(ledger, 25n * 2_000_000n - BigInt(accepted) * 100_000n);
    assert.ok(held >= 0n && held <= ledger, `held ${held} within ledger ${ledger}`);
    assert.ok(ledger - held <= 30_000_000n, 'the unheld balance never passes the tier-1 balance limit');
    // 500,000.00 received, at most 25,000.00 spent, at most 300,000.00 unheld: 175,000.00 at least is held.
    assert.ok(held >= 17_500_000n, `held ${held}`);
    const shown = await balance(account, noDailyLimit.apiKey);
    assert.equal(shown.heldBalance, `${held / 100n}.00`);
    assert.deepEqual(await verifyLedger(), []);
  });
});
