import assert from 'node:assert/strict';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, statement } from '../../helpers/fixtures';
import { call, eventually, type HttpResponse } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

interface Line {
  entry: { ID: string; Kind: string; Status: string; CreatedAt: string };
  runningBalance: string;
}

describe('balances at a past instant and daily balances', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const balanceAt = (accountRef: string, at: string, apiKey = tenant.apiKey) =>
    call(stack.apiUrl, 'GET', `/v1/accounts/${accountRef}/balance?at=${encodeURIComponent(at)}`, { apiKey });
  const dailyBalances = (accountRef: string, query: string, apiKey = tenant.apiKey) =>
    call(stack.apiUrl, 'GET', `/v1/accounts/${accountRef}/daily-balances${query}`, { apiKey });

  async function lines(accountRef: string): Promise<Line[]> {
    const page = await statement(stack, tenant.apiKey, accountRef);
    assert.equal(page.status, 200, page.text);
    return page.body.lines as Line[];
  }

  /** Waits until the clock has left the millisecond of `shown` (an entry's time), so the next entry is shown later. */
  const pastTheMillisecondOf = (shown: string) => eventually(async () => Date.now() > Date.parse(shown) + 1, { intervalMs: 2 });

  /** The instant halfway between two times, to the millisecond. */
  const between = (earlier: string, later: string) => new Date((Date.parse(earlier) + Date.parse(later)) / 2).toISOString();

  /**
   * Moves a posted entry to a chosen time: the clock of a real posting cannot be set, and a day's boundary needs
   * entries on either side of it. Everything else stays as the posting engine wrote it (so ledger:verify, run by other
   * tests on this database, still agrees); entries are moved in their seq order. The append-only trigger is disabled
   * only inside this transaction.
   */
  async function movedTo(entryId: string, at: string): Promise<void> {
    await stack.infra.db.transaction(async (trx) => {
      await trx.raw('ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_append_only_row');
      await trx('ledger_entries').where({ id: entryId }).update({ created_at: at });
      await trx.raw('ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_append_only_row');
    });
  }

  it("the balance at an instant between two credits is the statement's running balance at the earlier line", async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 10_025, fee: 25 }))).status, 200);
    await pastTheMillisecondOf((await lines(account.AccountRef))[0]!.entry.CreatedAt);
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef, amount: 5_025, fee: 25 }))).status, 200);
    const [first, second] = await lines(account.AccountRef);
    assert.ok(first && second && Date.parse(second.entry.CreatedAt) > Date.parse(first.entry.CreatedAt), 'two lines, one after the other');
    assert.equal(first.runningBalance, '10000.00');

    for (const at of [first.entry.CreatedAt, between(first.entry.CreatedAt, second.entry.CreatedAt)]) {
      const response = await balanceAt(account.AccountRef, at);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, {
        accountRef: account.AccountRef,
        currency: 'NGN',
        ledgerBalance: first.runningBalance,
        totalCredits: '10000.00',
        totalDebits: '0.00',
        inDeficit: false,
        asOf: at,
      });
    }
    assert.equal((await balanceAt(account.AccountRef, second.entry.CreatedAt)).body.ledgerBalance, second.runningBalance);
    // Before the account's first entry (before it existed, too): zero.
    const before = await balanceAt(account.AccountRef, '2020-01-01T00:00:00Z');
    assert.equal(before.status, 200, before.text);
    assert.equal(before.body.ledgerBalance, '0.00');
    // Without `at`, the balance now, as before.
    const now = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey });
    assert.equal(now.body.ledgerBalance, '15000.00');
    assert.equal(now.body.pendingCredits, '15000.00');
  });

  it('a reversal counts from when it was posted, not from when the credit it reverses was', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const confirmed = await fundAccount(stack, account.ID, 10_000n);
    await pastTheMillisecondOf(confirmed.createdAt.toISOString());
    const provisional = await fundAccount(stack, account.ID, 5_000n, 'provisional');
    await pastTheMillisecondOf(provisional.createdAt.toISOString());
    await stack.infra.db.transaction((trx) => stack.services.postingEngine.reverse(trx, provisional.id, 'provider did not confirm'));
    const [, credit, reversal] = await lines(account.AccountRef);
    assert.equal(credit!.entry.Status, 'reversed');
    assert.equal(reversal!.entry.Kind, 'reversal');

    const whileCredited = await balanceAt(account.AccountRef, between(credit!.entry.CreatedAt, reversal!.entry.CreatedAt));
    assert.equal(whileCredited.status, 200, whileCredited.text);
    assert.equal(whileCredited.body.ledgerBalance, '150.00');
    assert.equal(whileCredited.body.ledgerBalance, credit!.runningBalance);
    const afterReversal = await balanceAt(account.AccountRef, reversal!.entry.CreatedAt);
    assert.equal(afterReversal.body.ledgerBalance, '100.00');
    assert.equal(afterReversal.body.totalCredits, '150.00');
    assert.equal(afterReversal.body.totalDebits, '50.00');
  });

  it("the books at an instant: the customers' line and every account's balance (paged) are as they were then, the lines totalling 0.00", async () => {
    const books = await createTenant(stack);
    const [ada, bola] = [await provisionAccount(stack, books.apiKey), await provisionAccount(stack, books.apiKey)];
    const first = await fundAccount(stack, ada.ID, 10_000n);
    await pastTheMillisecondOf(first.createdAt.toISOString());
    const second = await fundAccount(stack, bola.ID, 7_000n);
    const at = between(first.createdAt.toISOString(), second.createdAt.toISOString());
    assert.ok(Date.parse(at) < second.createdAt.getTime());

    const then = await call(stack.apiUrl, 'GET', `/v1/ledger/balances?at=${encodeURIComponent(at)}`, { apiKey: books.apiKey });
    assert.equal(then.status, 200, then.text);
    const byCode = Object.fromEntries(
      (then.body.accounts as Array<{ code: string; balance: string }>).map((line) => [line.code, line.balance]),
    );
    assert.equal(byCode.customers, '100.00');
    assert.equal(byCode.clearing, '-100.00');
    assert.equal(then.body.total, '0.00');
    assert.equal(then.body.asOf, at);
    // Every customer account's balance then, a page at a time.
    const accountsThen = [];
    let cursor: string | null = null;
    do {
      const page: HttpResponse = await call(
        stack.apiUrl,
        'GET',
        `/v1/ledger/balances?at=${encodeURIComponent(at)}&limit=1${cursor ? `&after=${cursor}` : ''}`,
        { apiKey: books.apiKey },
      );
      assert.equal(page.status, 200, page.text);
      accountsThen.push(...page.body.customerAccounts);
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    assert.deepEqual(accountsThen, [
      { accountRef: ada.AccountRef, ledgerBalance: '100.00' },
      { accountRef: bola.AccountRef, ledgerBalance: '0.00' },
    ]);
    const now = await call(stack.apiUrl, 'GET', '/v1/ledger/balances', { apiKey: books.apiKey });
    assert.equal(now.body.accounts.find((line: { code: string }) => line.code === 'customers').balance, '170.00');
    assert.equal(now.body.asOf, undefined);
    assert.deepEqual(now.body.customerAccounts, [
      { accountRef: ada.AccountRef, ledgerBalance: '100.00' },
      { accountRef: bola.AccountRef, ledgerBalance: '70.00' },
    ]);
  });

  it('daily balances: Africa/Lagos days, an entry at 23:30 UTC in the next day, every day listed', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    await movedTo((await fundAccount(stack, account.ID, 10_000n)).id, '2026-01-10T22:30:00Z'); // 23:30 on the 10th in Lagos
    await movedTo((await fundAccount(stack, account.ID, 5_000n)).id, '2026-01-10T23:30:00Z'); // 00:30 on the 11th in Lagos
    const unconfirmed = await fundAccount(stack, account.ID, 3_000n, 'provisional');
    await movedTo(unconfirmed.id, '2026-01-11T12:00:00Z');
    const reversed = await stack.infra.db.transaction((trx) =>
      stack.services.postingEngine.reverse(trx, unconfirmed.id, 'provider did not confirm'),
    );
    await movedTo(reversed!.reversal.id, '2026-01-12T10:00:00Z');

    const response = await dailyBalances(account.AccountRef, '?from=2026-01-09&to=2026-01-13');
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.timeZone, 'Africa/Lagos');
    const day = (date: string, openingBalance: string, credits: string, debits: string, closingBalance: string) => ({
      date,
      openingBalance,
      credits,
      debits,
      closingBalance,
    });
    assert.deepEqual(response.body.days, [
      day('2026-01-09', '0.00', '0.00', '0.00', '0.00'),
      day('2026-01-10', '0.00', '100.00', '0.00', '100.00'),
      day('2026-01-11', '100.00', '80.00', '0.00', '180.00'),
      day('2026-01-12', '180.00', '0.00', '30.00', '150.00'),
      day('2026-01-13', '150.00', '0.00', '0.00', '150.00'),
    ]);
    // The balance at the Lagos midnight between them: the first credit only.
    assert.equal((await balanceAt(account.AccountRef, '2026-01-11T00:00:00+01:00')).body.ledgerBalance, '100.00');
  });

  it("another tenant's account is not found, at an instant or by day", async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const other = await createTenant(stack, 'Other Tenant');
    for (const response of [
      await balanceAt(account.AccountRef, '2026-01-01T00:00:00Z', other.apiKey),
      await dailyBalances(account.AccountRef, '?from=2026-01-01&to=2026-01-02', other.apiKey),
    ]) {
      assert.equal(response.status, 404, response.text);
      assert.equal(response.body.error, 'account not found');
    }
  });

  it('bad parameters are refused 400 with a message', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const refused = async (response: Promise<{ status: number; body: { message?: string }; text: string }>, words: RegExp) => {
      const answer = await response;
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.text, words);
    };
    await refused(balanceAt(account.AccountRef, 'yesterday'), /at must be an RFC 3339 timestamp/);
    await refused(balanceAt(account.AccountRef, '2026-01-01T00:00:00'), /at must be an RFC 3339 timestamp/);
    await refused(balanceAt(account.AccountRef, new Date(Date.now() + 3_600_000).toISOString()), /at must not be in the future/);
    await refused(
      call(stack.apiUrl, 'GET', '/v1/ledger/balances?at=tomorrow', { apiKey: tenant.apiKey }),
      /at must be an RFC 3339 timestamp/,
    );
    await refused(dailyBalances(account.AccountRef, '?to=2026-01-02'), /from is required/);
    await refused(dailyBalances(account.AccountRef, '?from=2026-02-30&to=2026-03-02'), /from must be a real date/);
    await refused(dailyBalances(account.AccountRef, '?from=01-01-2026&to=2026-03-02'), /from must be a date as YYYY-MM-DD/);
    await refused(dailyBalances(account.AccountRef, '?from=2026-01-05&to=2026-01-04'), /from must not be after to/);
    await refused(dailyBalances(account.AccountRef, '?from=2025-01-01&to=2026-01-02'), /at most 366/);
    const dayAfterTomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    await refused(dailyBalances(account.AccountRef, `?from=${dayAfterTomorrow}&to=${dayAfterTomorrow}`), /to must not be after today/);
    await refused(dailyBalances(account.AccountRef, '?from=0000-01-01&to=0000-12-31'), /from must be 1970-01-01 or later/);
    // Any instant of the past is an answer: zero long before the account.
    for (const at of ['0001-01-01T00:00:00Z', '1969-12-31T23:59:59.999-01:00']) {
      const answer = await balanceAt(account.AccountRef, at);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.ledgerBalance, '0.00');
    }
    // A year of 366 days is allowed.
    assert.equal((await dailyBalances(account.AccountRef, '?from=2024-01-01&to=2024-12-31')).status, 200);
  });
});
