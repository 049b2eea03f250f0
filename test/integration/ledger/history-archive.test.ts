import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../../../src/ids';
import { createHistoryMonthsService } from '../../../src/history/history-months.service';
import type { LedgerEntry } from '../../../src/ledger/ledger.types';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { rolledBack } from '../../helpers/rolled-back';
import { startReceiver } from '../../helpers/receiver';
import { scratchDatabase } from '../../helpers/scratch-database';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { magicAccountNumber } from '../../helpers/sandbox-values';

/** The time columns of each table whose rows the test moves a month back, as if written then. */
const TIMES: Record<string, string[]> = {
  ledger_entries: ['created_at', 'status_changed_at'],
  ledger_system_posting_rows: ['created_at'],
  ledger_payment_credit_keys: ['created_at'],
  ledger_entry_reversal_keys: ['created_at'],
  ledger_reservations: ['created_at'],
  inbound_events: ['created_at', 'received_at'],
  inbound_event_request_keys: ['created_at'],
  tenant_events: ['created_at', 'dispatched_at'],
  webhook_deliveries: ['created_at', 'updated_at', 'event_received_at', 'delivered_at'],
  webhook_attempts: ['created_at', 'attempted_at'],
  settlements: ['created_at', 'updated_at'],
};

const HISTORY_TABLES = [
  'ledger_entries',
  'ledger_system_posting_rows',
  'inbound_events',
  'tenant_events',
  'webhook_deliveries',
  'webhook_attempts',
];

/** `expression` (a timestamptz) a month earlier on the Africa/Lagos calendar. */
const monthEarlier = (expression: string) => `(${expression} AT TIME ZONE 'Africa/Lagos' - interval '1 month') AT TIME ZONE 'Africa/Lagos'`;

// Old months that held money are archived whole: each account's totals are carried forward, statements and balances
// keep their meaning, ledger:verify stays clean, and the keys keep their rules. The test has a database of its own:
// it detaches months for good.
describe('the ledger: archived months', () => {
  let database: { url: string; drop(): Promise<void> };
  let stack: Stack;
  let tenant: TestTenant;
  let busy: ProvisionedAccount;
  let quiet: ProvisionedAccount;
  let compensated: LedgerEntry;
  let kept: LedgerEntry;
  let paidOut: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** The books and every account's statement before any month is archived. */
  let booksBefore: unknown;
  const nonPayment = paymentEvent({ accountRef: 'none', eventType: 'terminal_transaction' });
  /** The first day of the current month, and of the two before it, and today (YYYY-MM-DD, Africa/Lagos). */
  let months: { current: string; last: string; older: string; today: string };

  const db = () => stack.infra.db;
  const get = (path: string) => call(stack.apiUrl, 'GET', path, { apiKey: tenant.apiKey });
  const problems = async () =>
    (await createLedgerVerificationRepo(db()).problems()).map((problem) => `${problem.check}: ${problem.detail}`);

  /** Moves every row of the history (and the times that go with it) a month back, the partitions of those months made. */
  async function everythingAMonthEarlier(): Promise<void> {
    await db().transaction(async (trx) => {
      for (const table of HISTORY_TABLES)
        await trx.raw(
          `SELECT history_month_partition(?, m::date)
             FROM generate_series(date_trunc('month', now() AT TIME ZONE 'Africa/Lagos') - interval '3 months',
                                  date_trunc('month', now() AT TIME ZONE 'Africa/Lagos'), interval '1 month') m`,
          [table],
        );
      for (const [table, columns] of Object.entries(TIMES)) {
        await trx.raw(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
        await trx.raw(`UPDATE ${table} SET ${columns.map((column) => `${column} = ${monthEarlier(column)}`).join(', ')}`);
        await trx.raw(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
      }
      await trx.raw(`UPDATE customers SET debits_day = (debits_day - interval '1 month')::date WHERE debits_day IS NOT NULL`);
    });
  }

  /** Waits until the outbox has dispatched every tenant event and no delivery is pending or retrying. */
  async function allDispatched(): Promise<void> {
    await eventually(
      async () =>
        (await db()('tenant_events').whereNull('dispatched_at').count({ count: '*' }))[0]!.count === '0' &&
        (await db()('webhook_deliveries').whereIn('status', ['pending', 'retrying']).count({ count: '*' }))[0]!.count === '0',
      { what: 'every event dispatched' },
    );
  }

  async function settled(account: ProvisionedAccount, accountNumber: string, status: string): Promise<string> {
    const response = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '400.00', bankCode: '058', accountNumber },
    });
    assert.equal(response.status, 202, JSON.stringify(response.body));
    const ref = response.body.merchantTxRef as string;
    await eventually(async () => (await get(`/v1/transfers/${ref}`)).body.status === status, { what: `settlement ${status}` });
    return ref;
  }

  const attached = async () => (await db().raw('SELECT count(*) AS count FROM pg_inherits')).rows[0].count as string;
  const carried = (account: ProvisionedAccount) => db()('ledger_archived_accounts').where({ account_id: account.ID }).first();

  before(async () => {
    database = await scratchDatabase('history_archive');
    stack = await startStack(
      {
        DATABASE_URL: database.url,
        SETTLEMENT_RETRY_SCHEDULE: '200ms',
        SETTLEMENT_POLL_INTERVAL: '200ms',
        SETTLEMENT_REFUND_WATCH: '1s',
        EVENT_DISPATCH_INTERVAL: '100ms',
      },
      { worker: true },
    );
    tenant = await createTenant(stack);
    receiver = await startReceiver();
    const endpoint = await call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', {
      apiKey: tenant.apiKey,
      body: { url: receiver.url, eventTypes: ['settlement.succeeded', 'settlement.failed'] },
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    busy = await provisionAccount(stack, tenant.apiKey);
    quiet = await provisionAccount(stack, tenant.apiKey);
    // Two months ago: a quiet account's only credit; the busy account's credits, a payout, and a provider's event.
    await fundAccount(stack, quiet.ID, 500_00n);
    compensated = await fundAccount(stack, busy.ID, 1_000_00n);
    kept = await fundAccount(stack, busy.ID, 2_000_00n);
    paidOut = await settled(busy, '0123456789', 'success');
    assert.equal((await sendProviderEvent(stack, nonPayment)).status, 200);
    await allDispatched();
    await everythingAMonthEarlier();
    // Last month: the first credit compensated (an answer to an entry of the older month), and a payout that failed and was reversed.
    await db().transaction((trx) => stack.services.postingEngine.compensateCredit(trx, compensated, 'refunded by the payer'));
    await settled(busy, magicAccountNumber('failsEverySubmission', '000000'), 'failed');
    await allDispatched();
    await everythingAMonthEarlier();
    months = (
      await db().raw(`SELECT to_char(m, 'YYYY-MM-DD') AS current, to_char(m - interval '1 month', 'YYYY-MM-DD') AS last,
                             to_char(m - interval '2 months', 'YYYY-MM-DD') AS older,
                             to_char(now() AT TIME ZONE 'Africa/Lagos', 'YYYY-MM-DD') AS today
                        FROM date_trunc('month', now() AT TIME ZONE 'Africa/Lagos') m`)
    ).rows[0];
    assert.deepEqual(await problems(), [], 'the history as made, clean before any detach');
    booksBefore = (await get('/v1/ledger/balances')).body;
  });
  after(async () => {
    await receiver?.close();
    await stack?.close();
    await database?.drop();
  });

  /** `body` run on a transaction rolled back after, then a detach of the months before last month refused naming `refusal`. */
  async function refused(body: (trx: Stack['infra']['db']) => Promise<void>, refusal: RegExp): Promise<void> {
    const before = await attached();
    await rolledBack(stack, async (trx) => {
      await body(trx);
      await assert.rejects(createHistoryMonthsService({ db: trx, refundWatchMs: 1000 }).detachBefore(months.last), refusal);
    });
    assert.equal(await attached(), before, 'nothing detached');
  }

  it('refuses to archive a month while money or work of it still moves, detaching nothing', async () => {
    const withTriggersOff = async (trx: Stack['infra']['db'], table: string, change: string) => {
      await trx.raw(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
      await trx.raw(change);
      await trx.raw(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
    };
    await refused(
      (trx) => withTriggersOff(trx, 'ledger_entries', `UPDATE ledger_entries SET status = 'provisional' WHERE id = '${kept.id}'`),
      /hold money or work still moving: 1 provisional entries; nothing detached/,
    );
    await refused(
      (trx) => trx.raw(`UPDATE settlements SET status = 'processing' WHERE merchant_tx_ref = ?`, [paidOut]),
      /1 settlements not final/,
    );
    await refused(
      (trx) => trx.raw(`UPDATE settlements SET updated_at = now() WHERE merchant_tx_ref = ?`, [paidOut]),
      /1 settlements not final/,
    );
    await refused(
      (trx) =>
        trx('ledger_reservations').insert({
          id: uuidv7(),
          tenant_id: tenant.tenantId,
          account_id: busy.ID,
          kind: 'payment_mismatch',
          reason: 'amount_mismatch',
          owner_id: kept.id,
          amount: 100,
        }),
      /1 reservations still holding an entry/,
    );
    await refused(
      (trx) =>
        withTriggersOff(
          trx,
          'tenant_events',
          `UPDATE tenant_events SET dispatched_at = NULL WHERE id = (SELECT id FROM tenant_events WHERE tenant_id = '${tenant.tenantId}' ORDER BY created_at LIMIT 1)`,
        ),
      /1 tenant events not dispatched/,
    );
    await refused(
      (trx) =>
        trx('webhook_deliveries').insert({
          id: uuidv7(),
          event_id: uuidv7(),
          tenant_id: tenant.tenantId,
          account_id: busy.ID,
          callback_url: 'https://receiver.example/hooks',
          payload: '{}',
          status: 'retrying',
          next_retry_at: new Date(),
          event_received_at: new Date(`${months.older}T12:00:00Z`),
          created_at: new Date(`${months.older}T12:00:00Z`),
        }),
      /1 deliveries pending or retrying/,
    );
    // Rows of those months waiting in a DEFAULT partition (no month partition of theirs).
    await refused(async (trx) => {
      const transactionId = randomUUID();
      await trx('ledger_system_posting_rows').insert(
        [100, -100].map((amount, index) => ({
          transaction_id: transactionId,
          account: index === 0 ? 'clearing' : 'costs',
          tenant_id: tenant.tenantId,
          kind: 'payout',
          amount,
          created_at: '2001-03-10T12:00:00Z',
        })),
      );
    }, /ledger_system_posting_rows's DEFAULT partition holds 2 row\(s\)/);
  });

  it('archives the older month: its totals carried forward, statements and balances as before, ledger:verify clean', async () => {
    const quietStatementBefore = await statement(stack, tenant.apiKey, quiet.AccountRef);
    const busyBefore = await statement(stack, tenant.apiKey, busy.AccountRef);
    const detached = await stack.services.historyMonths.detachBefore(months.last);
    const olderName = `y${months.older.slice(0, 4)}m${months.older.slice(5, 7)}`;
    assert.deepEqual(
      detached
        .map((partition) => partition.partition)
        .filter((name) => name.endsWith(olderName))
        .sort(),
      [...HISTORY_TABLES.map((table) => `${table}_${olderName}`)].sort(),
    );
    assert.deepEqual(await problems(), [], 'clean, the compensation of last month answering an archived credit among it');

    // The books read the archive's sums: the same balances, still summing to zero.
    const books = await get('/v1/ledger/balances');
    assert.equal(books.body.total, '0.00');
    assert.deepEqual(books.body, booksBefore);
    const booksThen = await get(`/v1/ledger/balances?at=${encodeURIComponent(`${months.last}T00:00:00+01:00`)}`);
    assert.equal(booksThen.status, 200, JSON.stringify(booksThen.body));
    assert.equal(booksThen.body.total, '0.00');
    const booksArchived = await get(`/v1/ledger/balances?at=${encodeURIComponent(`${months.older}T12:00:00+01:00`)}`);
    assert.equal(booksArchived.status, 400, JSON.stringify(booksArchived.body));
    assert.equal(booksArchived.body.code, 'period_archived');

    // The quiet account's only entry is archived: its opening balance of any later period is its carried balance.
    const quietRow = await carried(quiet);
    assert.deepEqual([quietRow.entries, quietRow.balance_after, quietRow.last_seq], ['1', '50000', '1']);
    const period = await statement(stack, tenant.apiKey, quiet.AccountRef, `?from=${encodeURIComponent(`${months.last}T00:00:00+01:00`)}`);
    assert.equal(period.status, 200, JSON.stringify(period.body));
    assert.deepEqual(
      [period.body.openingBalance, period.body.closingBalance, period.body.lines.length],
      ['500.00', '500.00', 0],
      JSON.stringify(period.body),
    );
    const untilNow = await statement(stack, tenant.apiKey, quiet.AccountRef, `?to=${encodeURIComponent(new Date().toISOString())}`);
    assert.deepEqual(
      [untilNow.body.openingBalance, untilNow.body.closingBalance, untilNow.body.lines.length],
      ['500.00', '500.00', 0],
      JSON.stringify(untilNow.body),
    );
    const days = await get(`/v1/accounts/${quiet.AccountRef}/daily-balances?from=${months.current}&to=${months.today}`);
    assert.equal(days.status, 200, JSON.stringify(days.body));
    assert.ok(
      days.body.days.every(
        (day: { openingBalance: string; closingBalance: string }) => day.openingBalance === '500.00' && day.closingBalance === '500.00',
      ),
      JSON.stringify(days.body.days),
    );
    const whole = await statement(stack, tenant.apiKey, quiet.AccountRef);
    assert.deepEqual([whole.body.openingBalance, whole.body.closingBalance, whole.body.lines.length], ['500.00', '500.00', 0]);
    assert.equal(quietStatementBefore.body.closingBalance, '500.00');
    const now = await get(`/v1/accounts/${quiet.AccountRef}/balance?at=${encodeURIComponent(new Date().toISOString())}`);
    assert.equal(now.status, 200, JSON.stringify(now.body));
    assert.equal(now.body.ledgerBalance, '500.00');
    // An instant among archived entries is refused, naming where the archive ends.
    const among = await get(`/v1/accounts/${quiet.AccountRef}/balance?at=${encodeURIComponent(`${months.older}T00:00:00+01:00`)}`);
    assert.equal(among.status, 400, JSON.stringify(among.body));
    assert.equal(among.body.code, 'period_archived');

    // The busy account's statement now begins where its archive ends, its seqs continuing, closing where it did.
    const busyRow = await carried(busy);
    const busyAfter = await statement(stack, tenant.apiKey, busy.AccountRef);
    assert.equal(busyAfter.status, 200, JSON.stringify(busyAfter.body));
    assert.equal(busyAfter.body.closingBalance, busyBefore.body.closingBalance);
    assert.equal(busyAfter.body.openingBalance, (Number(busyRow.balance_after) / 100).toFixed(2));
    const firstAttached = await db()('ledger_entries').where({ account_id: busy.ID }).orderBy('seq').first('id', 'seq');
    assert.equal(firstAttached.seq, String(Number(busyRow.last_seq) + 1));
    assert.equal(busyAfter.body.lines[0].entry.ID, firstAttached.id);
    // Paged one line at a time by cursor, the statement walks the attached entries in seq order.
    const firstPage = await statement(stack, tenant.apiKey, busy.AccountRef, '?limit=1');
    const secondPage = await statement(stack, tenant.apiKey, busy.AccountRef, `?limit=1&after=${firstPage.body.lines[0].entry.ID}`);
    assert.equal(secondPage.status, 200, JSON.stringify(secondPage.body));
    assert.equal(secondPage.body.lines[0].entry.ID, busyAfter.body.lines[1].entry.ID);
    const lastMonthStatement = await statement(
      stack,
      tenant.apiKey,
      busy.AccountRef,
      `?from=${encodeURIComponent(`${months.last}T00:00:00+01:00`)}`,
    );
    assert.equal(lastMonthStatement.body.openingBalance, busyAfter.body.openingBalance);
    assert.equal(lastMonthStatement.body.lines.length, busyAfter.body.lines.length);
  });

  it('archives the next month too, chaining what is carried; a new payment continues the seqs, ledger:verify clean', async () => {
    const before = await carried(busy);
    const account = await db()('virtual_accounts').where({ id: busy.ID }).first('last_seq');
    await stack.services.historyMonths.detachBefore(months.current);
    const after = await carried(busy);
    assert.equal(after.last_seq, account.last_seq);
    assert.ok(Number(after.entries) > Number(before.entries));
    assert.deepEqual(await problems(), []);
    const credit = await fundAccount(stack, busy.ID, 10_00n);
    assert.equal(credit.seq, BigInt(account.last_seq) + 1n);
    assert.deepEqual(await problems(), []);
    const books = await get('/v1/ledger/balances');
    assert.equal(books.body.total, '0.00', JSON.stringify(books.body));
    // Dumped and dropped, the detached tables are needed by nothing.
    const detachedTables = (
      await db().raw(
        `SELECT 'history_archive.' || c.relname AS name FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = 'history_archive'::regnamespace`,
      )
    ).rows.map((row: { name: string }) => row.name);
    for (const month of [months.older, months.last])
      for (const table of HISTORY_TABLES)
        assert.ok(
          detachedTables.includes(`history_archive.${table}_y${month.slice(0, 4)}m${month.slice(5, 7)}`),
          detachedTables.join(', '),
        );
    await db().raw(`DROP TABLE ${detachedTables.join(', ')}`);
    assert.deepEqual(await problems(), []);
    // Retention reads the months still attached: its pass over a history whose old months are gone completes.
    const retained = await stack.services.retention.run({ now: new Date(Date.now() + 400 * 24 * 3600 * 1000) });
    assert.equal(retained.unverifiedEventsDeleted, 0);
    assert.equal((await statement(stack, tenant.apiKey, busy.AccountRef)).status, 200);
  });

  it('answers a delivery of an archived month, and its replay, 404 archived', async () => {
    const delivery = await db()('history_archived_rows')
      .where({ table_name: 'webhook_deliveries', tenant_id: tenant.tenantId })
      .first('id');
    assert.ok(delivery, 'a delivery of the payouts archived');
    const read = await get(`/v1/webhooks/deliveries/${delivery.id}`);
    assert.equal(read.status, 404, JSON.stringify(read.body));
    assert.match(read.body.error, /^delivery archived/);
    const replay = await call(stack.apiUrl, 'POST', `/v1/webhooks/dead-letters/${delivery.id}/replay`, { apiKey: tenant.apiKey, body: {} });
    assert.equal(replay.status, 404, JSON.stringify(replay.body));
    assert.match(replay.body.error, /^delivery archived/);
  });

  it('answers what names an archived entry clearly, never a 500: its payout, its refunds', async () => {
    const payout = await get(`/v1/transfers/${paidOut}`);
    const refunds = await get(`/v1/payments/${kept.transactionGroupId}/refunds`);
    const refund = await call(stack.apiUrl, 'POST', `/v1/payments/${kept.transactionGroupId}/refunds`, {
      apiKey: tenant.apiKey,
      body: { amount: '10.00', reason: 'asked by the payer' },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    // The settlement's row stays: the payout reads as it ended. The payment's credit is archived: it is not found to refund.
    assert.deepEqual(
      [payout, refunds, refund].map((response) => `${response.status} ${response.body.status ?? response.body.error}`),
      ['200 success', '404 payment not found', '404 payment not found'],
    );
  });

  it('refuses a reconciliation window starting in an archived month, 400 window_archived', async () => {
    const run = await call(stack.apiUrl, 'POST', '/v1/reconciliation/runs', {
      apiKey: tenant.apiKey,
      body: { from: `${months.last}T12:00:00+01:00`, to: `${months.last}T18:00:00+01:00` },
    });
    assert.equal(run.status, 400, JSON.stringify(run.body));
    assert.equal(run.body.code, 'window_archived');
  });

  it("answers a provider's retry of an archived event as a duplicate: its request id's key stays", async () => {
    const requestId = nonPayment.requestId as string;
    const key = await db()('inbound_event_request_keys').where({ request_id: requestId }).first();
    assert.ok(key, 'the key of the archived event');
    assert.equal((await db()('inbound_events').where({ request_id: requestId })).length, 0, 'the event itself archived');
    assert.equal((await sendProviderEvent(stack, nonPayment)).status, 200);
    assert.equal((await db()('inbound_events').where({ request_id: requestId })).length, 0, 'nothing recorded again');
    assert.deepEqual(await problems(), []);
  });

  it('ledger:verify still names a record whose entry is missing and not archived', async () => {
    const missing = randomUUID();
    await rolledBack(stack, async (trx) => {
      await trx('ledger_entry_reversal_keys').insert({
        reverses_entry_id: randomUUID(),
        tenant_id: tenant.tenantId,
        entry_id: missing,
        created_at: new Date(),
      });
      const found = (await createLedgerVerificationRepo(trx).problems()).map((problem) => problem.detail);
      assert.ok(
        found.some((detail) => detail.includes(`names entry ${missing}, which does not exist`)),
        found.join('\n'),
      );
    });
  });
});
