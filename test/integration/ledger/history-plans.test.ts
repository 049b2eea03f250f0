import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../../../src/ids';
import { createPostingEngine } from '../../../src/ledger/posting-engine';
import { planPosting } from '../../../src/ledger/postings';
import { tierDefaultsOf } from '../../../src/policies/kyc-limits/customer-limits';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

// A read of the month-partitioned history that no period bounds plans every month's partition: the statement and
// balance reads are prepared once per connection and their plans reused, which must survive a column added to the
// entries while the API runs (a plan of `*` would fail with "cached plan must not change result type").
describe('the ledger: history reads planned once per connection', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let account: ProvisionedAccount;
  before(async () => {
    // One connection, so that the test's own queries see the API's prepared statements (they are per connection).
    stack = await startStack({ DATABASE_POOL_MAX: '1' });
    tenant = await createTenant(stack);
    account = await provisionAccount(stack, tenant.apiKey);
    for (const kobo of [150_000n, 250_000n, 350_000n]) await fundAccount(stack, account.ID, kobo);
  });
  after(() => stack.close());

  const v1 = async (path: string) => {
    const response = await call(stack.apiUrl, 'GET', path, { apiKey: tenant.apiKey });
    assert.equal(response.status, 200, response.text);
    return response.body;
  };

  const amounts = (page: { lines: Array<{ entry: { Amount: string } }> }) => page.lines.map((line) => line.entry.Amount);

  /** Every read the statement and balance pages make of the entries, each twice, and what they answered. */
  async function readEverything(): Promise<unknown[]> {
    const now = new Date().toISOString();
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const answers: unknown[] = [];
    for (let round = 0; round < 2; round += 1) {
      const whole = await statement(stack, tenant.apiKey, account.AccountRef, '?limit=2');
      assert.equal(whole.status, 200, whole.text);
      const next = await statement(stack, tenant.apiKey, account.AccountRef, `?limit=2&after=${whole.body.lines[1].entry.ID}`);
      assert.equal(next.status, 200, next.text);
      const period = await statement(
        stack,
        tenant.apiKey,
        account.AccountRef,
        `?from=${encodeURIComponent(from)}&to=${encodeURIComponent(now)}&after=${whole.body.lines[0].entry.ID}`,
      );
      assert.equal(period.status, 200, period.text);
      const at = await v1(`/v1/accounts/${account.AccountRef}/balance?at=${encodeURIComponent(now)}`);
      const today = now.slice(0, 10);
      const days = await v1(`/v1/accounts/${account.AccountRef}/daily-balances?from=${today}&to=${today}`);
      answers.push([
        amounts(whole.body),
        amounts(next.body),
        amounts(period.body),
        period.body.openingBalance,
        at.ledgerBalance,
        days.days.map((day: { closingBalance: string }) => day.closingBalance),
      ]);
    }
    return answers;
  }

  /** The names of the statements the API's connection holds prepared. */
  async function preparedNames(): Promise<string[]> {
    const { rows } = await stack.infra.db.raw('SELECT name FROM pg_prepared_statements ORDER BY name');
    return rows.map((row: { name: string }) => row.name);
  }

  /** A payment credited through the ledger's statement for one credit (an operator's assignment, a restoration). */
  const creditOne = (kobo: bigint) =>
    stack.infra.db.transaction((trx) =>
      createPostingEngine(stack.infra.db, { tierDefaults: tierDefaultsOf(stack.config) }).creditPayment(
        trx,
        account.ID,
        planPosting([
          {
            direction: 'credit',
            kind: 'payment',
            amount: kobo,
            status: 'provisional',
            narration: 'credited alone',
            providerTxnRef: `alone-${randomUUID()}`,
            transactionGroupId: uuidv7(),
          },
        ]),
      ),
    );

  const pay = async (amount: number) =>
    (await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: amount + 25, fee: 25 }))).status;

  it('answers every statement and balance read, and credits payments, the same before and after a column is added to the entries, each prepared once', async () => {
    assert.equal(await pay(10_000), 200);
    await creditOne(1n);
    const before = await readEverything();
    assert.deepEqual(before[0], before[1]);
    assert.deepEqual(before[0], [
      ['1500.00', '2500.00'],
      ['3500.00', '10000.00'],
      ['2500.00', '3500.00', '10000.00', '0.01'],
      '0.00',
      '17500.01',
      ['17500.01'],
    ]);
    const prepared = await preparedNames();
    const reads = [
      'balances-at',
      'daily-balances',
      'statement-cursor-seq',
      'statement-running-before',
      'statement-page',
      'statement-page-after',
      'statement-period-page-from-to',
    ];
    assert.deepEqual(
      reads.filter((name) => !prepared.includes(name)),
      [],
      `every read prepared: ${prepared.join(', ')}`,
    );

    await stack.infra.db.raw('ALTER TABLE ledger_entries ADD COLUMN plans_probe integer');
    try {
      assert.deepEqual(await readEverything(), before);
      assert.equal(await pay(500), 200);
      assert.equal((await creditOne(2n)).entry.amount, 2n);
      const after = await statement(stack, tenant.apiKey, account.AccountRef);
      assert.deepEqual([amounts(after.body).at(-1), after.body.closingBalance], ['0.02', '18000.03']);
    } finally {
      await stack.infra.db.raw('ALTER TABLE ledger_entries DROP COLUMN plans_probe');
    }
    assert.deepEqual(await preparedNames(), prepared, 'the same statements, still prepared');
  });
});
