import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { uuidv7 } from '../../../src/ids';
import { createHistoryMonthsService } from '../../../src/history/history-months.service';
import { isAlreadyAnswered, isDuplicatePaymentCredit } from '../../../src/ledger/ledger-constraints';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { tenantTables } from '../../../src/tenant-moves/tenant-tables';
import { fundAccount, provisionAccount, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { rolledBack } from '../../helpers/rolled-back';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const CLI = path.resolve(__dirname, '../../../src/main/cli.js');

/** The CLI's exit code and output. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: process.env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The outcome of each of `postings`, run at once, each in a transaction of its own. */
async function settledAll(postings: Array<() => Promise<unknown>>): Promise<PromiseSettledResult<unknown>[]> {
  return Promise.allSettled(postings.map((posting) => posting()));
}

// The ledger's history is partitioned by month: its rules across months (one payment credit per provider transaction,
// one answer per entry) are keys of their own, the worker makes the months ahead, and old months are detached whole.
describe('the ledger: history by month', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let account: ProvisionedAccount;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    account = await provisionAccount(stack, tenant.apiKey);
  });
  after(() => stack.close());

  const db = () => stack.infra.db;
  const lastMonth = async (): Promise<Date> =>
    (await db().raw(`SELECT date_trunc('month', now() AT TIME ZONE 'Africa/Lagos') AT TIME ZONE 'Africa/Lagos' - interval '5 days' AS at`))
      .rows[0].at as Date;

  /**
   * A confirmed payment credit of `providerTxnRef` posted at `at` (last month), as the migration carries history over:
   * the entry with its counters, its key, and its account's and customer's totals moved.
   */
  async function creditPostedAt(at: Date, providerTxnRef: string, kobo: bigint): Promise<string> {
    const id = uuidv7();
    await db().transaction(async (trx) => {
      const [row] = await trx('virtual_accounts')
        .where({ id: account.ID })
        .forUpdate()
        .select('last_seq', 'total_credits', 'total_debits', 'customer_id');
      const credits = BigInt(row.total_credits) + kobo;
      const debits = BigInt(row.total_debits);
      await trx('ledger_entries').insert({
        id,
        tenant_id: tenant.tenantId,
        account_id: account.ID,
        seq: Number(row.last_seq) + 1,
        direction: 'credit',
        kind: 'payment',
        amount: kobo.toString(),
        status: 'confirmed',
        narration: 'carried over',
        provider_txn_ref: providerTxnRef,
        transaction_group_id: id,
        transaction_id: id,
        balance_after: (credits - debits).toString(),
        credits_to_date: credits.toString(),
        debits_to_date: debits.toString(),
        created_at: at,
        clearing_amount: (-kobo).toString(),
        provider_fees_amount: 0,
        payouts_in_transit_amount: 0,
      });
      await trx('ledger_payment_credit_keys').insert({
        provider_txn_ref: providerTxnRef,
        tenant_id: tenant.tenantId,
        entry_id: id,
        created_at: at,
      });
      await trx('virtual_accounts')
        .where({ id: account.ID })
        .update({
          last_seq: Number(row.last_seq) + 1,
          total_credits: credits.toString(),
          ledger_balance: (credits - debits).toString(),
        });
      await trx('customers').where({ id: row.customer_id }).increment('unheld_balance', Number(kobo));
    });
    return id;
  }

  const creditNow = (providerTxnRef: string) => () =>
    db().transaction((trx) =>
      stack.services.postingEngine.post(trx, account.ID, [
        {
          direction: 'credit',
          kind: 'payment',
          amount: 100_00n,
          status: 'confirmed',
          narration: 'a webhook',
          providerTxnRef,
          transactionGroupId: uuidv7(),
        },
      ]),
    );

  it('credits a provider transaction once when its credits fall in different months', async () => {
    const providerTxnRef = `txn-${randomUUID()}`;
    const earlier = await creditPostedAt(await lastMonth(), providerTxnRef, 250_00n);
    const outcomes = await settledAll([creditNow(providerTxnRef), creditNow(providerTxnRef), creditNow(providerTxnRef)]);
    assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 0);
    for (const outcome of outcomes) assert.ok(outcome.status === 'rejected' && isDuplicatePaymentCredit(outcome.reason), String(outcome));
    const credits = await db()('ledger_entries').where({ provider_txn_ref: providerTxnRef, kind: 'payment' }).select('id');
    assert.deepEqual(
      credits.map((credit) => credit.id),
      [earlier],
    );
    assert.deepEqual(await createLedgerVerificationRepo(db()).problems(), []);
  });

  it('credits a provider transaction once when its webhooks race', async () => {
    const providerTxnRef = `txn-${randomUUID()}`;
    const outcomes = await settledAll(Array.from({ length: 8 }, () => creditNow(providerTxnRef)));
    assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 1);
    for (const outcome of outcomes) assert.ok(outcome.status === 'fulfilled' || isDuplicatePaymentCredit(outcome.reason), String(outcome));
    assert.equal((await db()('ledger_entries').where({ provider_txn_ref: providerTxnRef, kind: 'payment' })).length, 1);
  });

  it('answers an entry once when its compensations race', async () => {
    const credit = await fundAccount(stack, account.ID, 300_00n);
    const compensate = () =>
      db().transaction((trx) =>
        stack.services.postingEngine.post(trx, account.ID, [
          {
            direction: 'debit',
            kind: 'adjustment',
            reversesEntryId: credit.id,
            amount: 300_00n,
            status: 'confirmed',
            narration: 'compensation',
            providerTxnRef: null,
            transactionGroupId: credit.transactionGroupId,
            counterPostings: [{ account: 'clearing', amount: 300_00n }],
          },
        ]),
      );
    const outcomes = await settledAll(Array.from({ length: 6 }, () => compensate));
    assert.equal(
      outcomes.filter((outcome) => outcome.status === 'fulfilled').length,
      1,
      outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'posted')).join('\n'),
    );
    for (const outcome of outcomes) assert.ok(outcome.status === 'fulfilled' || isAlreadyAnswered(outcome.reason), String(outcome));
    assert.equal((await db()('ledger_entries').where({ reverses_entry_id: credit.id })).length, 1);
    assert.deepEqual(await createLedgerVerificationRepo(db()).problems(), []);
  });

  it('ledger:verify names a record whose entry does not exist, and an entry without its key', async () => {
    const missingEntry = randomUUID();
    await rolledBack(stack, async (trx) => {
      const credit = await trx('ledger_entries').where({ account_id: account.ID, kind: 'payment' }).orderBy('seq', 'desc').first('id');
      await trx.raw('ALTER TABLE ledger_payment_credit_keys DISABLE TRIGGER ledger_payment_credit_keys_append_only');
      await trx('ledger_payment_credit_keys').where({ entry_id: credit.id }).delete();
      // An answer's key naming an answering entry that does not exist.
      const answered = randomUUID();
      await trx('ledger_entry_reversal_keys').insert({
        reverses_entry_id: answered,
        tenant_id: tenant.tenantId,
        entry_id: missingEntry,
        created_at: new Date(),
      });
      const problems = await createLedgerVerificationRepo(trx).problems();
      const details = problems.map((problem) => `${problem.check}: ${problem.detail}`);
      assert.ok(
        details.some(
          (detail) =>
            detail === `orphan_references: ledger_entry_reversal_keys row ${answered} names entry ${missingEntry}, which does not exist`,
        ),
        details.join('\n'),
      );
      assert.ok(
        details.some((detail) => detail.startsWith(`ledger_keys: payment credit ${credit.id}`)),
        details.join('\n'),
      );
    });
  });

  it('makes the months ahead, once, and moves the rows waiting in the DEFAULT partition into their month', async () => {
    await rolledBack(stack, async (trx) => {
      const history = createHistoryMonthsService({ db: trx, refundWatchMs: 0 });
      const partitions = async () =>
        (
          await trx.raw(
            `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'ledger_system_posting_rows'::regclass ORDER BY 1`,
          )
        ).rows.map((row: { relname: string }) => row.relname);
      // Two balanced system postings dated in a month no partition holds yet: they wait in the DEFAULT.
      const transactionId = randomUUID();
      await trx('ledger_system_posting_rows').insert([
        {
          transaction_id: transactionId,
          account: 'clearing',
          tenant_id: tenant.tenantId,
          kind: 'payout',
          amount: 100,
          created_at: '2031-03-10T12:00:00Z',
        },
        {
          transaction_id: transactionId,
          account: 'costs',
          tenant_id: tenant.tenantId,
          kind: 'payout',
          amount: -100,
          created_at: '2031-03-10T12:00:00Z',
        },
      ]);
      assert.ok(!(await partitions()).includes('ledger_system_posting_rows_y2031m03'));
      const made = await history.ensureMonths(5);
      assert.ok(
        made.some((partition) => partition.table === 'ledger_system_posting_rows' && partition.month === '2031-03-01'),
        JSON.stringify(made),
      );
      assert.ok(
        made.some((partition) => partition.table === 'ledger_entries'),
        'the fourth and fifth months ahead of the entries',
      );
      assert.ok((await partitions()).includes('ledger_system_posting_rows_y2031m03'));
      assert.equal((await trx('ledger_system_posting_rows_default').count({ count: '*' }))[0]!.count, '0');
      assert.equal((await trx('ledger_system_posting_rows_y2031m03').where({ transaction_id: transactionId })).length, 2);
      // The moved rows are still append-only, and a second pass makes nothing.
      await assert.rejects(
        trx.transaction((savepoint) => savepoint.raw('TRUNCATE ledger_system_posting_rows_y2031m03')),
        /append-only/,
      );
      assert.deepEqual(await history.ensureMonths(5), []);
    });
  });

  it('reads a month of a statement from that month’s partition only', async () => {
    // This month, as a statement asks for it: from its first instant to the next month's, Africa/Lagos time.
    const month = (
      await db().raw(`SELECT to_char(m, '"y"YYYY"m"MM') AS name, m AT TIME ZONE 'Africa/Lagos' AS starts,
                             (m + interval '1 month') AT TIME ZONE 'Africa/Lagos' AS ends
                        FROM date_trunc('month', now() AT TIME ZONE 'Africa/Lagos') m`)
    ).rows[0] as { name: string; starts: Date; ends: Date };
    const { rows } = await db().raw(
      `EXPLAIN (FORMAT JSON) SELECT * FROM ledger_entries
        WHERE account_id = ? AND seq > 0 AND seq <= 100 AND created_at >= ? AND created_at < ? ORDER BY seq LIMIT 51`,
      [account.ID, month.starts, month.ends],
    );
    const plan = JSON.stringify(rows[0]['QUERY PLAN']);
    const relations = [...plan.matchAll(/"Relation Name":"([^"]+)"/g)].map((match) => match[1]);
    assert.deepEqual(relations, [`ledger_entries_${month.name}`], plan);
    // And the API's statement of a period answers from the period's entries (the bounds change nothing it returns).
    const period = await statement(
      stack,
      tenant.apiKey,
      account.AccountRef,
      `?from=${encodeURIComponent((await lastMonth()).toISOString())}`,
    );
    assert.equal(period.status, 200, JSON.stringify(period.body));
  });

  it('history:detach detaches whole months that are over, and refuses a month not over or holding money still moving', async () => {
    const notOver = await cli('history:detach', '--before', '2099-01');
    assert.equal(notOver.code, 1);
    assert.match(notOver.stderr, /2099-01 is not over/);
    const badMonth = await cli('history:detach', '--before', '2026-13');
    assert.equal(badMonth.code, 2);
    assert.match(badMonth.stderr, /--before must be a month, YYYY-MM/);

    await rolledBack(stack, async (trx) => {
      const history = createHistoryMonthsService({ db: trx, refundWatchMs: 0 });
      // Other test files of this database may have posted into past months (into a DEFAULT partition): their months are
      // made first, as the worker's loop would.
      await history.ensureMonths(0);
      // The credit carried over into last month, were it still provisional, holds its month: refused, nothing detached.
      const thisMonth = (await trx.raw(`SELECT to_char(date_trunc('month', now() AT TIME ZONE 'Africa/Lagos'), 'YYYY-MM-DD') AS month`))
        .rows[0].month as string;
      await trx.raw('ALTER TABLE ledger_entries DISABLE TRIGGER USER');
      await trx.raw(
        `UPDATE ledger_entries SET status = 'provisional'
          WHERE account_id = ? AND created_at < CAST(CAST(? AS date) AS timestamp) AT TIME ZONE 'Africa/Lagos'`,
        [account.ID, thisMonth],
      );
      await trx.raw('ALTER TABLE ledger_entries ENABLE TRIGGER USER');
      const attached = async () => (await trx.raw('SELECT count(*) AS count FROM pg_inherits')).rows[0].count as string;
      const attachedBefore = await attached();
      await assert.rejects(history.detachBefore(thisMonth), /hold money or work still moving: 1 provisional entries; nothing detached/);
      assert.equal(await attached(), attachedBefore, 'nothing detached');
      // An empty month goes (one long before any test's entries).
      await trx.raw(`SELECT history_month_partition('ledger_entries', '2001-01-01')`);
      await trx.raw(`SELECT history_month_partition('ledger_system_posting_rows', '2001-01-01')`);
      const detached = await history.detachBefore('2001-02-01');
      assert.deepEqual(detached.map((partition) => partition.archivedAs).sort(), [
        'history_archive.ledger_entries_y2001m01',
        'history_archive.ledger_system_posting_rows_y2001m01',
      ]);
      const stillAttached = (
        await trx.raw(`SELECT count(*) AS count FROM pg_inherits WHERE inhrelid = 'history_archive.ledger_entries_y2001m01'::regclass`)
      ).rows[0].count;
      assert.equal(stillAttached, '0');
      // Out of the service's schema, an archived month is no table a tenant move copies.
      const moved = (await tenantTables(trx)).map((table) => table.name);
      assert.ok(moved.includes('ledger_entries') && !moved.some((name) => name.endsWith('_y2001m01')), moved.join(', '));
    });
  });
});
