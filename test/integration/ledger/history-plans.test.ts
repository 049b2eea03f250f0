import assert from 'node:assert/strict';
import { fundAccount, provisionAccount, statement, type ProvisionedAccount } from '../../helpers/fixtures';
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

  /** The statements reading the entries that the API's connection holds prepared. */
  async function preparedReads(): Promise<string[]> {
    const { rows } = await stack.infra.db.raw(
      `SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%ledger_entries%' ORDER BY statement`,
    );
    return rows.map((row: { statement: string }) => row.statement);
  }

  it('answers every statement and balance read the same before and after a column is added to the entries, each read prepared once', async () => {
    const before = await readEverything();
    assert.deepEqual(before[0], before[1]);
    assert.deepEqual(before[0], [['1500.00', '2500.00'], ['3500.00'], ['2500.00', '3500.00'], '0.00', '7500.00', ['7500.00']]);
    const prepared = await preparedReads();
    // The whole-history page with and without a cursor, the period's opening and closing probe, the cursor's seq,
    // the period's page, the balance at an instant and the daily balances.
    assert.equal(prepared.length, 7, prepared.join('\n\n'));

    await stack.infra.db.raw('ALTER TABLE ledger_entries ADD COLUMN plans_probe integer');
    try {
      assert.deepEqual(await readEverything(), before);
    } finally {
      await stack.infra.db.raw('ALTER TABLE ledger_entries DROP COLUMN plans_probe');
    }
    assert.deepEqual(await preparedReads(), prepared, 'the same statements, still prepared');
  });
});
