import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { accountHolderName } from '../../../src/sandbox/names';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };
const VERIFIED_NIN = '12345678901';
// The payer's name is the sandbox's name for its account, so a return to sender passes the name check.
const PAYER = { senderAccountNumber: '0123456789', senderBankName: 'GUARANTY TRUST BANK', senderName: accountHolderName('0123456789') };

describe('KYC tier limits per customer', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    // Two posting statements at once, so concurrent credits to two accounts of one customer can race for its lock.
    stack = await startStack({ PAYMENT_POSTING_STATEMENTS: '2' });
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  /** Accounts of one tier-1 customer: provisioned under one externalRef. */
  async function customerWithAccounts(count: number): Promise<ProvisionedAccount[]> {
    const externalRef = `cust-${randomUUID()}`;
    const accounts: ProvisionedAccount[] = [];
    for (let index = 0; index < count; index += 1) accounts.push(await provisionAccount(stack, tenant.apiKey, { externalRef }));
    assert.equal(new Set(accounts.map((account) => account.CustomerID)).size, 1);
    return accounts;
  }
  const settle = (account: ProvisionedAccount, amount: string) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, { apiKey: tenant.apiKey, body: { amount, ...DESTINATION } });
  /** A payment whose net amount (after the provider's fee) is `net` naira. */
  const pay = (account: ProvisionedAccount, net: number) =>
    sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: net + 50, fee: 50, ...PAYER }));
  async function paid(account: ProvisionedAccount, net: number): Promise<void> {
    assert.equal((await pay(account, net)).status, 200);
  }
  /** Ledger and held balance of each account, in kobo. */
  async function balances(accounts: ProvisionedAccount[]): Promise<Array<{ ledger: bigint; held: bigint }>> {
    const rows = await stack.infra
      .db('virtual_accounts')
      .whereIn(
        'id',
        accounts.map((account) => account.ID),
      )
      .select('id', 'ledger_balance', 'held_balance');
    return accounts.map((account) => {
      const row = rows.find((candidate: { id: string }) => candidate.id === account.ID);
      return { ledger: BigInt(row.ledger_balance), held: BigInt(row.held_balance) };
    });
  }
  const total = (values: bigint[]) => values.reduce((sum, value) => sum + value, 0n);
  async function verifyLedger(): Promise<unknown[]> {
    return (JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] }).problems;
  }

  it('a tier-1 customer with two accounts holds at most the balance limit in total and pays out at most the daily limit in total', async () => {
    const [first, second] = (await customerWithAccounts(2)) as [ProvisionedAccount, ProvisionedAccount];
    for (const _ of [1, 2, 3, 4]) await paid(first, 50_000);
    for (const _ of [1, 2, 3, 4]) await paid(second, 50_000);

    // 400,000.00 received, each credit within the single-credit limit: 300,000.00 unheld across both accounts.
    const held = await balances([first, second]);
    assert.deepEqual(
      held.map((account) => [account.ledger, account.held]),
      [
        [20_000_000n, 0n],
        [20_000_000n, 10_000_000n],
      ],
    );
    const holds = await stack.infra
      .db('ledger_reservations')
      .where({ account_id: second.ID })
      .orderBy('created_at')
      .select('amount', 'reason', 'limit_amount');
    assert.deepEqual(
      holds.map((hold) => [hold.amount, hold.reason, hold.limit_amount]),
      [
        ['5000000', 'balance', '30000000'],
        ['5000000', 'balance', '30000000'],
      ],
    );

    assert.equal((await settle(first, '30000.00')).status, 202);
    const refused = await settle(second, '30000.00');
    assert.deepEqual(
      [refused.status, refused.body.code, refused.body.error],
      [400, 'daily_debit_limit_exceeded', 'amount exceeds the tier 1 daily payout limit of 50000.00 (20000.00 left today, Africa/Lagos)'],
    );
    assert.equal((await settle(second, '20000.00')).status, 202);
    assert.equal((await settle(first, '0.01')).body.code, 'daily_debit_limit_exceeded');

    // Returning held money to its payer is outside the daily limit, and leaves the customer's unheld money as it was.
    const [newest] = await stack.infra
      .db('ledger_reservations')
      .where({ account_id: second.ID })
      .orderBy('created_at', 'desc')
      .limit(1)
      .select('owner_id as entry_id');
    await stack.infra.db.transaction((trx) => stack.services.postingEngine.confirm(trx, newest.entry_id));
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const returned = await call(stack.apiUrl, 'POST', `/auth/holds/${newest.entry_id}/return`, {
      cookie: operator,
      body: { note: 'payer asked for it back' },
    });
    assert.equal(returned.status, 202, returned.text);
    const after = await balances([first, second]);
    assert.deepEqual(
      after.map((account) => [account.ledger, account.held]),
      [
        [17_000_000n, 0n],
        [13_000_000n, 5_000_000n],
      ],
    );
    assert.deepEqual(await verifyLedger(), []);
  });

  it('concurrent credits and settles on two accounts of one customer keep the balance and daily limits of the customer', async () => {
    const [first, second] = (await customerWithAccounts(2)) as [ProvisionedAccount, ProvisionedAccount];
    for (const account of [first, second]) for (const _ of [1, 2]) await paid(account, 50_000);

    const work = Array.from({ length: 20 }, (_, index) => {
      const account = index % 4 < 2 ? first : second;
      return index % 2 === 0 ? pay(account, 30_000) : settle(account, '10000.00');
    });
    const responses = await Promise.all(work);
    const credits = responses.filter((_, index) => index % 2 === 0);
    const settles = responses.filter((_, index) => index % 2 === 1);
    assert.ok(credits.every((response) => response.status === 200));
    assert.ok(
      settles.every(
        (response) => response.status === 202 || (response.status === 400 && response.body.code === 'daily_debit_limit_exceeded'),
      ),
      JSON.stringify(settles.map((response) => response.body)),
    );
    assert.equal(
      settles.filter((response) => response.status === 202).length,
      5,
      'the daily limit of 50,000.00 is five settles of 10,000.00 across both accounts',
    );

    // 200,000.00 before, 300,000.00 received, 50,000.00 paid out: whatever the order, at most 300,000.00 unheld.
    const after = await balances([first, second]);
    const ledger = total(after.map((account) => account.ledger));
    const held = total(after.map((account) => account.held));
    assert.equal(ledger, 45_000_000n);
    assert.ok(ledger - held <= 30_000_000n, `unheld ${ledger - held} within the tier-1 balance limit`);
    assert.ok(held >= 15_000_000n && held <= 20_000_000n, `held ${held}`);
    assert.deepEqual(await verifyLedger(), []);
  });

  it("a tier rise releases the customer's held money oldest credit first across its accounts, up to the new balance limit", async () => {
    const [first, second] = (await customerWithAccounts(2)) as [ProvisionedAccount, ProvisionedAccount];
    for (const _ of [1, 2, 3, 4, 5]) await paid(first, 50_000);
    await paid(second, 50_000);
    // The customer is at the tier-1 balance limit: each of these is held in full.
    for (const account of [second, first, second, first, second]) await paid(account, 50_000);
    const holdsInOrder = await stack.infra
      .db('ledger_reservations as h')
      .join('ledger_entries as e', 'e.id', 'h.owner_id')
      .whereIn('h.account_id', [first.ID, second.ID])
      .orderBy([{ column: 'e.created_at' }, { column: 'e.id' }])
      .select('h.owner_id as entry_id', 'h.account_id', 'h.amount');
    assert.deepEqual(
      holdsInOrder.map((hold) => [hold.account_id, hold.amount]),
      [second, first, second, first, second].map((account) => [account.ID, '5000000']),
    );

    const kyc = await call(stack.apiUrl, 'POST', `/v1/customers/${first.CustomerID}/kyc`, {
      apiKey: tenant.apiKey,
      body: { nin: VERIFIED_NIN },
    });
    assert.equal(kyc.body.KYCTier, 2);
    // Tier 2 allows 500,000.00 unheld: 200,000.00 more, the four oldest holds; the newest stays held.
    const releases = await stack.infra
      .db('ledger_reservation_changes as c')
      .join('ledger_reservations as r', 'r.id', 'c.reservation_id')
      .whereIn('c.account_id', [first.ID, second.ID])
      .select('r.owner_id as entry_id', 'c.amount', 'c.reason');
    assert.deepEqual(
      releases.map((release) => [release.entry_id, release.amount, release.reason]).sort(),
      holdsInOrder
        .slice(0, 4)
        .map((hold) => [hold.entry_id, '5000000', 'tier_raised'])
        .sort(),
    );
    assert.deepEqual(
      (await balances([first, second])).map((account) => account.held),
      [0n, 5_000_000n],
    );

    // An operator's release of the rest is the operator's decision, past the balance limit.
    const operator = await dashboardSession(stack, tenant.tenantId, 'operator');
    const released = await call(stack.apiUrl, 'POST', `/auth/holds/${holdsInOrder[4]!.entry_id}/release`, {
      cookie: operator,
      body: { note: 'payslip seen' },
    });
    assert.deepEqual([released.status, released.body.released], [200, '50000.00']);
    assert.deepEqual(await verifyLedger(), []);
  });

  it('settling more than the balance of a tier-1 account is insufficient funds, whatever the daily limit', async () => {
    const [account] = (await customerWithAccounts(1)) as [ProvisionedAccount];
    await paid(account, 40_000);
    for (const amount of ['60000.00', '40000.01']) {
      const refused = await settle(account, amount);
      assert.deepEqual([refused.status, refused.body.error, refused.body.code], [400, 'insufficient funds', 'insufficient_funds'], amount);
    }
    assert.equal((await settle(account, '40000.00')).status, 202);
  });

  it("a credit held whole leaves its customer's row unwritten: nothing the row keeps moves", async () => {
    const [account] = (await customerWithAccounts(1)) as [ProvisionedAccount];
    for (const _ of [1, 2, 3, 4, 5, 6]) await paid(account, 50_000);
    // At the 300,000.00 balance limit: the next credit is held whole.
    const customerRow = () =>
      stack.infra.db('customers').where({ id: account.CustomerID }).first(stack.infra.db.raw('xmin::text AS version'), 'unheld_balance');
    const before = await customerRow();
    assert.equal(BigInt(before.unheld_balance), 30_000_000n);
    await paid(account, 20_000);
    assert.deepEqual(await balances([account]), [{ ledger: 32_000_000n, held: 2_000_000n }]);
    assert.deepEqual(await customerRow(), before);
    assert.deepEqual(await verifyLedger(), []);
  });
});
