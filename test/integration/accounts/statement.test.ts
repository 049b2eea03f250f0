import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../../../src/ids';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { formatKobo } from '../../../src/money';
import { fundAccount, provisionAccount, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { reservedOf } from '../../helpers/reserved';

interface Line {
  entry: { ID: string; Direction: 'credit' | 'debit'; Amount: string; CreatedAt: string };
  runningBalance: string;
}

const kobo = (naira: string): bigint => BigInt(naira.replace('.', ''));

describe('statement and balance', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let account: ProvisionedAccount;
  /** 120 entries: two credits of 100.00 then one debit of 30.00, repeated. */
  const ENTRIES = 120;

  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    account = await provisionAccount(stack, tenant.apiKey);
    for (let i = 0; i < ENTRIES; i += 1) {
      const debit = i % 3 === 2;
      // A settlement's debit posts provisional (spending what a settlement may, counted in the customer's payouts of
      // the day) and is confirmed when its payout leaves, as the money API does it.
      await stack.infra.db.transaction(async (trx) => {
        const [entry] = await stack.services.postingEngine.post(
          trx,
          account.ID,
          [
            {
              direction: debit ? 'debit' : 'credit',
              kind: debit ? 'settlement' : 'payment',
              amount: debit ? 3_000n : 10_000n,
              status: debit ? 'provisional' : 'confirmed',
              narration: `entry ${i}`,
              providerTxnRef: `seed-${account.ID}-${i}`,
              transactionGroupId: uuidv7(),
            },
          ],
          debit ? { spendFrom: 'ledger' } : {},
        );
        if (debit) await stack.services.postingEngine.settlementPaid(trx, entry!.id, 0n);
      });
    }
  });
  after(() => stack.close());

  async function allPages(query = ''): Promise<{ pages: any[]; lines: Line[] }> {
    const pages = [];
    let cursor: string | null = null;
    do {
      const separator = query ? '&' : '?';
      const page = await statement(
        stack,
        tenant.apiKey,
        account.AccountRef,
        `${query}${cursor ? `${query ? separator : '?'}after=${cursor}` : ''}`,
      );
      assert.equal(page.status, 200, page.text);
      pages.push(page.body);
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    return { pages, lines: pages.flatMap((page) => page.lines as Line[]) };
  }

  it('pages oldest-first, 50 a page, with whole-history aggregates that agree on every page', async () => {
    const { pages, lines } = await allPages();
    assert.deepEqual(
      pages.map((page) => page.lines.length),
      [50, 50, 20],
    );
    for (const page of pages) {
      assert.deepEqual(
        { opening: page.openingBalance, credits: page.totalCredits, debits: page.totalDebits, closing: page.closingBalance },
        { opening: '0.00', credits: '8000.00', debits: '1200.00', closing: '6800.00' },
      );
      assert.equal(page.virtualAccount.AccountRef, account.AccountRef);
    }
    assert.deepEqual(
      pages.map((page) => page.pagination.hasMore),
      [true, true, false],
    );
    assert.equal(pages.at(-1).pagination.nextCursor, null);
    assert.equal(pages[0].pagination.nextCursor, pages[0].lines.at(-1).entry.ID);
    let running = 0n;
    for (const line of lines) {
      running += line.entry.Direction === 'credit' ? kobo(line.entry.Amount) : -kobo(line.entry.Amount);
      assert.equal(line.runningBalance, formatKobo(running));
    }
    assert.equal(lines.length, ENTRIES);
    assert.deepEqual(
      lines.map((line) => line.entry.CreatedAt),
      [...lines.map((line) => line.entry.CreatedAt)].sort(),
    );
  });

  it('takes a page size between 1 and 200', async () => {
    assert.equal((await statement(stack, tenant.apiKey, account.AccountRef, '?limit=7')).body.lines.length, 7);
    assert.equal((await statement(stack, tenant.apiKey, account.AccountRef, '?limit=200')).body.lines.length, ENTRIES);
    for (const bad of ['0', '201', 'abc', '1.5']) {
      const response = await statement(stack, tenant.apiKey, account.AccountRef, `?limit=${bad}`);
      assert.equal(response.status, 400, bad);
      assert.equal(response.body.error, 'limit must be an integer from 1 to 200');
    }
  });

  it("refuses a cursor that is not an entry of this account with 400 'invalid cursor'", async () => {
    const other = await provisionAccount(stack, tenant.apiKey);
    const foreign = await fundAccount(stack, other.ID, 100n);
    for (const cursor of ['garbage', uuidv7(), foreign.id]) {
      const response = await statement(stack, tenant.apiKey, account.AccountRef, `?after=${cursor}`);
      assert.equal(response.status, 400, cursor);
      assert.deepEqual({ error: response.body.error, code: response.body.code }, { error: 'invalid cursor', code: 'invalid_cursor' });
    }
  });

  it("shows an account without entries as an empty page at zero, and no other tenant's account", async () => {
    const empty = await provisionAccount(stack, tenant.apiKey);
    const page = await statement(stack, tenant.apiKey, empty.AccountRef);
    assert.equal(page.status, 200, page.text);
    assert.deepEqual([page.body.lines, page.body.pagination.nextCursor], [[], null]);
    assert.deepEqual([page.body.openingBalance, page.body.totalCredits, page.body.totalDebits, page.body.closingBalance].map(kobo), [
      0n,
      0n,
      0n,
      0n,
    ]);
    const stranger = await createTenant(stack);
    for (const query of ['', `?after=${uuidv7()}`]) {
      const foreign = await statement(stack, stranger.apiKey, account.AccountRef, query);
      assert.equal(foreign.status, 404, query);
      assert.equal(foreign.body.error, 'account not found');
    }
  });

  it('computes a from/to period from the stored to-date columns', async () => {
    const { lines } = await allPages();
    const from = lines[30]!.entry.CreatedAt;
    const to = lines[60]!.entry.CreatedAt;
    const { pages, lines: period } = await allPages(`?from=${from}&to=${to}`);
    assert.deepEqual(
      period.map((line) => line.entry.ID),
      lines.slice(30, 60).map((line) => line.entry.ID),
    );
    const inPeriod = lines.slice(30, 60);
    const sum = (direction: string) =>
      inPeriod.filter((line) => line.entry.Direction === direction).reduce((total, line) => total + kobo(line.entry.Amount), 0n);
    for (const page of pages) {
      assert.equal(page.openingBalance, lines[29]!.runningBalance);
      assert.equal(page.totalCredits, formatKobo(sum('credit')));
      assert.equal(page.totalDebits, formatKobo(sum('debit')));
      assert.equal(page.closingBalance, lines[59]!.runningBalance);
      assert.equal(kobo(page.closingBalance), kobo(page.openingBalance) + kobo(page.totalCredits) - kobo(page.totalDebits));
    }
    const fromOnly = await statement(stack, tenant.apiKey, account.AccountRef, `?from=${from}&limit=200`);
    assert.equal(fromOnly.body.lines.length, ENTRIES - 30);
    assert.equal(fromOnly.body.closingBalance, '6800.00');
    const toOnly = await statement(stack, tenant.apiKey, account.AccountRef, `?to=${to}&limit=200`);
    assert.equal(toOnly.body.lines.length, 60);
    assert.equal(toOnly.body.openingBalance, '0.00');
    const empty = await statement(stack, tenant.apiKey, account.AccountRef, `?from=2999-01-01T00:00:00Z`);
    assert.deepEqual(
      [empty.body.lines.length, empty.body.openingBalance, empty.body.totalCredits, empty.body.totalDebits, empty.body.closingBalance],
      [0, '6800.00', '0.00', '0.00', '6800.00'],
    );
  });

  it('refuses a malformed or inverted period', async () => {
    const inverted = await statement(stack, tenant.apiKey, account.AccountRef, '?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    assert.equal(inverted.status, 400);
    assert.equal(inverted.body.error, 'from must not be after to');
    const malformed = await statement(stack, tenant.apiKey, account.AccountRef, '?from=yesterday');
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error, 'from must be an ISO 8601 timestamp');
  });

  it('reports ledger, available and pending balances', async () => {
    const fresh = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, fresh.ID, 100_000n);
    await fundAccount(stack, fresh.ID, 25_000n, 'provisional');
    const balance = await call(stack.apiUrl, 'GET', `/v1/accounts/${fresh.AccountRef}/balance`, { apiKey: tenant.apiKey });
    assert.equal(balance.status, 200);
    assert.deepEqual(
      { ...balance.body, asOf: undefined },
      {
        accountRef: fresh.AccountRef,
        currency: 'NGN',
        ledgerBalance: '1250.00',
        availableBalance: '1000.00',
        pendingCredits: '250.00',
        heldBalance: '0.00',
        reserved: reservedOf(),
        freeze: null,
        inDeficit: false,
        asOf: undefined,
      },
    );
    assert.ok(Date.now() - Date.parse(balance.body.asOf) < 60_000);
  });
});

describe('ledger_entries is append-only', () => {
  let stack: Stack;
  let entryId: string;
  before(async () => {
    stack = await startStack();
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    entryId = (await fundAccount(stack, account.ID, 500n)).id;
  });
  after(() => stack.close());

  it('refuses to change an amount, delete, truncate, or move a status backwards', async () => {
    const db = stack.infra.db;
    await assert.rejects(db('ledger_entries').where({ id: entryId }).update({ amount: 1 }), /immutable except for its status/);
    await assert.rejects(db('ledger_entries').where({ id: entryId }).delete(), /append-only: DELETE refused/);
    await assert.rejects(db.raw('TRUNCATE ledger_entries CASCADE'), /append-only: TRUNCATE refused/);
    await assert.rejects(
      db('ledger_entries').where({ id: entryId }).update({ status: 'provisional' }),
      /cannot move from confirmed to provisional/,
    );
    await assert.rejects(
      db('ledger_entries').where({ id: entryId }).update({ status: 'reversed' }),
      /cannot move from confirmed to reversed/,
    );
  });

  it('refuses to commit an unbalanced transaction, and to change or delete a system posting', async () => {
    const db = stack.infra.db;
    const entry = await db('ledger_entries').where({ id: entryId }).first('tenant_id', 'transaction_id');
    const posting = { tenant_id: entry.tenant_id, kind: 'payout', reference: 'test' };
    const oneSided = db.transaction(async (trx) => {
      await trx('ledger_system_posting_rows').insert({ ...posting, transaction_id: randomUUID(), account: 'clearing', amount: 100 });
    });
    await assert.rejects(oneSided, /unbalanced: 1 postings summing to 100 kobo/);
    const transactionId = randomUUID();
    const uneven = db('ledger_system_posting_rows').insert([
      { ...posting, transaction_id: transactionId, account: 'clearing', amount: 100 },
      { ...posting, transaction_id: transactionId, account: 'costs', amount: -99 },
    ]);
    await assert.rejects(uneven, /unbalanced: 2 postings summing to 1 kobo/);
    // A posting added later to a transaction that committed balanced (the entry with its counter) unbalances it.
    await assert.rejects(
      db('ledger_system_posting_rows').insert({ ...posting, transaction_id: entry.transaction_id, account: 'costs', amount: 1 }),
      /unbalanced: 3 postings summing to 1 kobo/,
    );
    const balancedId = randomUUID();
    await db('ledger_system_posting_rows').insert([
      { ...posting, transaction_id: balancedId, account: 'clearing', amount: 100 },
      { ...posting, transaction_id: balancedId, account: 'costs', amount: -100 },
    ]);
    await assert.rejects(
      db('ledger_system_posting_rows').where({ transaction_id: balancedId }).update({ amount: 1 }),
      /append-only: UPDATE refused/,
    );
    await assert.rejects(db('ledger_system_posting_rows').where({ transaction_id: balancedId }).delete(), /append-only: DELETE refused/);
    await assert.rejects(db.raw('TRUNCATE ledger_system_posting_rows'), /append-only: TRUNCATE refused/);
    // An entry's counters change with it or not at all.
    await assert.rejects(db('ledger_entries').where({ id: entryId }).update({ clearing_amount: 0 }), /immutable except for its status/);
    assert.deepEqual(await createLedgerVerificationRepo(db).problems(), []);
  });
});

describe('statement snapshot while entries are being posted', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  it("the last page's last running balance equals its closingBalance, with two writers posting throughout", async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    let posting = true;
    const writer = async (): Promise<number> => {
      let posted = 0;
      for (; posting; posted += 1) await fundAccount(stack, account.ID, 100n);
      return posted;
    };
    const writers = [writer(), writer()];
    const mismatches: string[] = [];
    let lastPages = 0;
    let cursor: string | undefined;
    try {
      for (const deadline = Date.now() + 4_000; Date.now() < deadline;) {
        const page = await statement(stack, tenant.apiKey, account.AccountRef, `?limit=200${cursor ? `&after=${cursor}` : ''}`);
        assert.equal(page.status, 200, page.text);
        const lines = page.body.lines as Line[];
        if (page.body.pagination.hasMore) {
          cursor = page.body.pagination.nextCursor;
          continue;
        }
        lastPages += 1;
        const last = lines.at(-1);
        if (last && last.runningBalance !== page.body.closingBalance)
          mismatches.push(`${last.runningBalance} vs closing ${page.body.closingBalance}`);
        // Start the next read one line back, so the next last page is never empty.
        cursor = lines.at(-2)?.entry.ID ?? cursor;
      }
    } finally {
      posting = false;
    }
    const posted = (await Promise.all(writers)).reduce((sum, count) => sum + count, 0);
    assert.ok(posted > 20, `the writers posted only ${posted} entries`);
    assert.ok(lastPages > 20, `only ${lastPages} last pages were read`);
    assert.deepEqual(mismatches, []);
  });
});
