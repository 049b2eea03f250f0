import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { fundAccount, provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { uuidv7 } from '../../../src/ids';
import { createInternalTransfersRepo } from '../../../src/internal-transfers/internal-transfers.repo';
import { DailyPayoutLimitError, InsufficientFundsError } from '../../../src/ledger/posting-engine';

const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

const naira = (amount: number): bigint => BigInt(amount) * 100n;

// The posting engine's transfer, below any route: one balanced transaction, the funds rule under the locks,
// the receiving customer's KYC limits, the daily payout limit only across customers, and crossed transfers.
describe('the ledger: a transfer between two accounts', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const newCustomer = async (count: number): Promise<ProvisionedAccount[]> => {
    const externalRef = `cust-${randomUUID()}`;
    const accounts: ProvisionedAccount[] = [];
    for (let index = 0; index < count; index += 1) accounts.push(await provisionAccount(stack, tenant.apiKey, { externalRef }));
    return accounts;
  };
  /** The engine's transfer, recorded with its transfer row as the transfers service records it (ledger:verify holds them together). */
  const transfer = (from: ProvisionedAccount, to: ProvisionedAccount, amount: bigint) =>
    stack.infra.db.transaction(async (trx) => {
      const id = uuidv7();
      const posted = await stack.services.postingEngine.transfer(trx, {
        fromAccountId: from.ID,
        toAccountId: to.ID,
        amount,
        narration: 'rent share',
        reference: id,
      });
      await createInternalTransfersRepo(trx).insert({
        id,
        tenantId: tenant.tenantId,
        fromAccountId: from.ID,
        toAccountId: to.ID,
        amount,
        narration: 'rent share',
        metadata: {},
        transactionId: posted.transactionId,
        debitEntryId: posted.debit.id,
        creditEntryId: posted.credit.id,
        idempotencyKey: randomUUID(),
        requestHash: 'not hashed: made below the service',
        source: 'api',
        createdBy: null,
        splitOfPayment: null,
      });
      return posted;
    });
  async function account(id: string): Promise<{ ledger: bigint; held: bigint }> {
    const row = await stack.infra.db('virtual_accounts').where({ id }).first('ledger_balance', 'held_balance');
    return { ledger: BigInt(row.ledger_balance), held: BigInt(row.held_balance) };
  }
  async function usedToday(accountId: string): Promise<bigint> {
    const row = await stack.infra
      .db('customers')
      .whereIn('id', stack.infra.db('virtual_accounts').where({ id: accountId }).select('customer_id'))
      .first('debits_day_total');
    return BigInt(row.debits_day_total);
  }
  async function verifyLedger(): Promise<unknown[]> {
    return (JSON.parse((await runCli('ledger:verify', '--json')).stdout) as { problems: unknown[] }).problems;
  }

  it('moves the amount to the kobo as one transaction of a debit and a credit, with no system posting', async () => {
    const [from] = (await newCustomer(1)) as [ProvisionedAccount];
    const [to] = (await newCustomer(1)) as [ProvisionedAccount];
    await fundAccount(stack, from.ID, 1_000_01n);
    const posted = await transfer(from, to, 250_37n);

    assert.deepEqual(await account(from.ID), { ledger: 749_64n, held: 0n });
    assert.deepEqual(await account(to.ID), { ledger: 250_37n, held: 0n });
    assert.equal(posted.held, 0n);
    assert.equal(posted.debit.transactionId, posted.credit.transactionId);
    assert.deepEqual(
      [posted.debit.kind, posted.debit.direction, posted.debit.status, posted.credit.kind, posted.credit.direction, posted.credit.status],
      ['transfer', 'debit', 'confirmed', 'transfer', 'credit', 'confirmed'],
    );
    const system = await stack.infra.db('ledger_system_postings').where({ transaction_id: posted.transactionId });
    assert.deepEqual(system, []);
    assert.deepEqual(await verifyLedger(), []);
  });

  it('refuses what the account may not spend, held and provisional money included, and writes nothing', async () => {
    const [from] = (await newCustomer(1)) as [ProvisionedAccount];
    const [to] = (await newCustomer(1)) as [ProvisionedAccount];
    // 60,000.00 in one credit: 10,000.00 over the tier-1 single-credit limit is held.
    await fundAccount(stack, from.ID, naira(60_000));
    assert.deepEqual(await account(from.ID), { ledger: naira(60_000), held: naira(10_000) });

    await assert.rejects(transfer(from, to, naira(50_000) + 1n), InsufficientFundsError);
    assert.deepEqual(await account(from.ID), { ledger: naira(60_000), held: naira(10_000) });
    assert.deepEqual(await account(to.ID), { ledger: 0n, held: 0n });
    assert.equal((await stack.infra.db('ledger_entries').where({ account_id: to.ID })).length, 0);

    await transfer(from, to, naira(50_000));
    assert.deepEqual(await account(from.ID), { ledger: naira(10_000), held: naira(10_000) });

    // A provisional credit is not the provider's confirmed money yet: a transfer never spends it.
    await fundAccount(stack, from.ID, naira(1_000), 'provisional');
    await assert.rejects(transfer(from, to, 1n), InsufficientFundsError);
    assert.deepEqual(await account(from.ID), { ledger: naira(11_000), held: naira(10_000) });
  });

  it("judges the credit against the receiving customer's limits, but money moved between one customer's accounts is no new money", async () => {
    const [payer] = (await newCustomer(1)) as [ProvisionedAccount];
    const [first, second] = (await newCustomer(2)) as [ProvisionedAccount, ProvisionedAccount];
    // The receiving customer at its 300,000.00 balance limit, all of it in the first account.
    for (const _ of [1, 2, 3, 4, 5, 6]) await fundAccount(stack, first.ID, naira(50_000));
    assert.deepEqual(await account(first.ID), { ledger: naira(300_000), held: 0n });

    // Between its own accounts, even over the 50,000.00 single-credit limit: nothing held.
    const own = await transfer(first, second, naira(60_000));
    assert.equal(own.held, 0n);
    assert.deepEqual(await account(second.ID), { ledger: naira(60_000), held: 0n });

    // From another customer: all of it over the balance limit, so held.
    await fundAccount(stack, payer.ID, naira(20_000));
    const incoming = await transfer(payer, second, naira(15_000));
    assert.equal(incoming.held, naira(15_000));
    assert.deepEqual(await account(second.ID), { ledger: naira(75_000), held: naira(15_000) });
    assert.deepEqual(await verifyLedger(), []);
  });

  it('counts toward the daily payout limit only when the money leaves the customer', async () => {
    const [first, second] = (await newCustomer(2)) as [ProvisionedAccount, ProvisionedAccount];
    const [other] = (await newCustomer(1)) as [ProvisionedAccount];
    for (const _ of [1, 2]) await fundAccount(stack, first.ID, naira(50_000));

    await transfer(first, second, naira(60_000));
    assert.equal(await usedToday(first.ID), 0n);

    await transfer(second, other, naira(30_000));
    assert.equal(await usedToday(first.ID), naira(30_000));
    // 50,000.00 a day for tier 1: 20,000.00 left.
    await assert.rejects(transfer(first, other, naira(20_000) + 1n), (error: unknown) => {
      assert.ok(error instanceof DailyPayoutLimitError);
      assert.match(error.message, /tier 1 daily payout limit of 50000\.00 \(20000\.00 left today/);
      return true;
    });
    await transfer(first, other, naira(20_000));
    assert.equal(await usedToday(first.ID), naira(50_000));
  });

  it('runs crossed transfers between two accounts at once to the end: no deadlock, never below zero', async () => {
    const [left] = (await newCustomer(1)) as [ProvisionedAccount];
    const [right] = (await newCustomer(1)) as [ProvisionedAccount];
    await fundAccount(stack, left.ID, 100_00n);
    await fundAccount(stack, right.ID, 100_00n);
    // 40 transfers of 7.00 each way: some refused for funds as they cross, none deadlocked.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 80 }, (_, index) => (index % 2 === 0 ? transfer(left, right, 7_00n) : transfer(right, left, 7_00n))),
    );
    const failures = outcomes
      .filter((outcome) => outcome.status === 'rejected')
      .map((outcome) => (outcome as PromiseRejectedResult).reason);
    assert.ok(
      failures.every((reason) => reason instanceof InsufficientFundsError),
      `unexpected failures: ${failures.map(String).join('; ')}`,
    );
    const balances = [(await account(left.ID)).ledger, (await account(right.ID)).ledger];
    assert.equal(balances[0]! + balances[1]!, 200_00n);
    assert.ok(balances.every((balance) => balance >= 0n));
    const moved = await stack.infra
      .db('ledger_entries')
      .whereIn('account_id', [left.ID, right.ID])
      .where({ kind: 'transfer' })
      .count('* as n');
    assert.equal(Number(moved[0]!.n), 2 * (80 - failures.length));
    assert.deepEqual(await verifyLedger(), []);
  });
});
