import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const UNBALANCED = /ledger transaction .* is unbalanced/;

// Postgres refuses an unbalanced ledger transaction whatever shape the statement writing it has: customer entries
// alone, system postings alone, both in one statement (checked once, by the system postings' trigger), or a
// transaction split over two statements. Written below the posting engine, in SQL, and rolled back.
describe('the ledger: every transaction balanced, checked by Postgres', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let account: ProvisionedAccount;
  let seq = 1_000_000_000;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    account = await provisionAccount(stack, tenant.apiKey);
  });
  after(() => stack.close());

  /**
   * A VALUES row of a customer entry of `transactionId` (credit: +, debit: -), its running columns consistent, carrying
   * `counters` (its postings to clearing, provider_fees and payouts_in_transit) when given.
   */
  const entry = (
    transactionId: string,
    direction: 'credit' | 'debit',
    amount: number,
    counters?: [number | null, number | null, number | null],
  ): string => {
    seq += 1;
    const debits = direction === 'debit' ? amount : 0;
    const [clearing, fees, inTransit] = (counters ?? [null, null, null]).map((value) =>
      value === null ? 'NULL::bigint' : `${value}::bigint`,
    );
    return `('${randomUUID()}'::uuid, '${tenant.tenantId}'::uuid, '${account.ID}'::uuid, ${seq}, '${direction}', '${direction === 'credit' ? 'payment' : 'settlement'}',
             ${amount}, 'confirmed', 'ref-${randomUUID()}', '${randomUUID()}'::uuid, ${amount}, ${amount}, ${debits}, clock_timestamp(), '${transactionId}'::uuid,
             ${clearing}, ${fees}, ${inTransit})`;
  };
  const insertEntries = (...rows: string[]) => `INSERT INTO ledger_entries (id, tenant_id, account_id, seq, direction, kind, amount, status,
      provider_txn_ref, transaction_group_id, credits_to_date, balance_after, debits_to_date, created_at, transaction_id, clearing_amount,
      provider_fees_amount, payouts_in_transit_amount)
    SELECT id, tenant_id, account_id, seq, direction, kind, amount, status, provider_txn_ref, transaction_group_id, credits_to_date,
           credits_to_date - debits_to_date, debits_to_date, created_at, transaction_id, clearing_amount, provider_fees_amount,
           payouts_in_transit_amount
      FROM (VALUES ${rows.join(', ')}) AS v(id, tenant_id, account_id, seq, direction, kind, amount, status, provider_txn_ref,
           transaction_group_id, credits_to_date, balance_after, debits_to_date, created_at, transaction_id, clearing_amount,
           provider_fees_amount, payouts_in_transit_amount)`;
  const insertPostings = (...rows: Array<[string, string, number]>) =>
    `INSERT INTO ledger_system_posting_rows (transaction_id, account, tenant_id, kind, amount, reference) VALUES ${rows
      .map(
        ([transactionId, systemAccount, amount]) =>
          `('${transactionId}', '${systemAccount}', '${tenant.tenantId}', 'payment', ${amount}, 'test')`,
      )
      .join(', ')}`;
  /** Both inserts as one statement. */
  const together = (entries: string, postings: string) => `WITH e AS (${entries} RETURNING 1), x AS (${postings} RETURNING 1) SELECT 1`;

  /** Runs `statements` one after another in a database transaction that is rolled back: what the first refused, or 'accepted'. */
  async function outcome(...statements: string[]): Promise<string> {
    const rollback = new Error('rolled back');
    try {
      await stack.infra.db.transaction(async (trx: Knex.Transaction) => {
        for (const statement of statements) await trx.raw(statement);
        throw rollback;
      });
    } catch (error) {
      if (error === rollback) return 'accepted';
      return (error as Error).message;
    }
    throw new Error('unreachable');
  }

  it('accepts a transaction of entries and postings written whole by one statement, and entries alone that balance', async () => {
    const t = randomUUID();
    assert.equal(await outcome(together(insertEntries(entry(t, 'credit', 100)), insertPostings([t, 'clearing', -100]))), 'accepted');
    const u = randomUUID();
    assert.equal(await outcome(insertEntries(entry(u, 'credit', 100), entry(u, 'debit', 100))), 'accepted');
  });

  it('refuses entries and postings of one statement that do not balance', async () => {
    const t = randomUUID();
    assert.match(
      await outcome(together(insertEntries(entry(t, 'credit', 100)), insertPostings([t, 'clearing', -99]))),
      /ledger transaction .* is unbalanced: 2 postings summing to 1 kobo/,
    );
    // The postings' trigger checks the transaction whole, the entries' own unbalanced transaction too.
    const balanced = randomUUID();
    const lopsided = randomUUID();
    const elsewhere = randomUUID();
    assert.match(
      await outcome(
        together(
          insertEntries(entry(balanced, 'credit', 100), entry(lopsided, 'credit', 5)),
          insertPostings([balanced, 'clearing', -100], [elsewhere, 'clearing', 7], [elsewhere, 'costs', -7]),
        ),
      ),
      new RegExp(`ledger transaction ${lopsided} .* is unbalanced: 1 postings summing to 5 kobo`),
    );
  });

  it('refuses entries alone that do not balance, and postings alone', async () => {
    const t = randomUUID();
    assert.match(await outcome(insertEntries(entry(t, 'credit', 100), entry(t, 'debit', 99))), /2 postings summing to 1 kobo/);
    assert.match(await outcome(insertEntries(entry(randomUUID(), 'credit', 100))), /1 postings summing to 100 kobo/);
    const u = randomUUID();
    assert.match(await outcome(insertPostings([u, 'clearing', 100], [u, 'costs', -99])), /2 postings summing to 1 kobo/);
  });

  it('refuses a transaction split over two statements, whichever table is written first', async () => {
    const t = randomUUID();
    assert.match(await outcome(insertEntries(entry(t, 'credit', 100)), insertPostings([t, 'clearing', -100])), UNBALANCED);
    const u = randomUUID();
    assert.match(await outcome(insertPostings([u, 'clearing', -100]), insertEntries(entry(u, 'credit', 100))), UNBALANCED);
    // Postings added to a balanced transaction in a later statement are checked with it.
    const v = randomUUID();
    assert.match(
      await outcome(
        together(insertEntries(entry(v, 'credit', 100)), insertPostings([v, 'clearing', -100])),
        insertEntries(entry(v, 'credit', 1)),
      ),
      /3 postings summing to 1 kobo/,
    );
  });

  it('accepts an entry carrying counters that balance it, alone: a transaction of its own with no system-posting row', async () => {
    const t = randomUUID();
    assert.equal(await outcome(insertEntries(entry(t, 'credit', 100, [-102, 2, 0]))), 'accepted');
    assert.equal(await outcome(insertEntries(entry(randomUUID(), 'debit', 100, [0, 0, 100]))), 'accepted');
    // A compensation's shape: one entry carrying its counters, the others balancing among themselves.
    const u = randomUUID();
    assert.equal(
      await outcome(insertEntries(entry(u, 'debit', 100, [100, 0, 0]), entry(u, 'debit', 30), entry(u, 'credit', 30))),
      'accepted',
    );
  });

  it('refuses an entry whose counters do not balance it, or that carries only some of them', async () => {
    const counters = /violates check constraint "ledger_entries_counters_balance"/;
    assert.match(await outcome(insertEntries(entry(randomUUID(), 'credit', 100, [-101, 2, 0]))), counters);
    assert.match(await outcome(insertEntries(entry(randomUUID(), 'debit', 100, [0, 0, -100]))), counters);
    assert.match(await outcome(insertEntries(entry(randomUUID(), 'credit', 100, [-100, null, null]))), counters);
    // Entries without counters beside one that carries them are checked with it, as one transaction.
    const u = randomUUID();
    assert.match(
      await outcome(insertEntries(entry(u, 'debit', 100, [100, 0, 0]), entry(u, 'debit', 30), entry(u, 'credit', 29))),
      new RegExp(`ledger transaction ${u} .* is unbalanced: 4 postings summing to -1 kobo`),
    );
  });

  it('refuses a posting or an entry added later to a transaction an entry balanced with its counters', async () => {
    const t = randomUUID();
    assert.match(
      await outcome(insertEntries(entry(t, 'credit', 100, [-100, 0, 0])), insertPostings([t, 'costs', 1])),
      /3 postings summing to 1 kobo/,
    );
    const u = randomUUID();
    assert.match(
      await outcome(insertEntries(entry(u, 'credit', 100, [-100, 0, 0])), insertEntries(entry(u, 'credit', 1))),
      /3 postings summing to 1 kobo/,
    );
  });

  it('ledger:verify counts the counters: an entry whose counters do not balance it, were the CHECK gone, is named', async () => {
    const t = randomUUID();
    const rollback = new Error('rolled back');
    let problems: Array<{ check: string; detail: string }> = [];
    await assert.rejects(
      stack.infra.db.transaction(async (trx: Knex.Transaction) => {
        await trx.raw('ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_counters_balance');
        await trx.raw(insertEntries(entry(t, 'credit', 100, [-101, 2, 0])));
        problems = await createLedgerVerificationRepo(trx).problems();
        throw rollback;
      }),
      (error) => error === rollback,
    );
    assert.deepEqual(
      problems.filter((problem) => problem.check === 'balanced_transactions').map((problem) => problem.detail),
      [`transaction ${t} of tenant ${tenant.tenantId}: 3 postings summing to 1 kobo`],
    );
  });
});
