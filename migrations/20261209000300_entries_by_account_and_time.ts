import type { Knex } from 'knex';

/**
 * An account's entries by time, carrying their running columns: the last entry of an account at or before an
 * instant (a balance at that instant, a statement period's opening and closing, a day's boundary) is one probe that
 * never reads the table. It replaces the index on (account_id, created_at), which it serves as well, so a posting
 * writes no more index entries than before.
 *
 * Built CONCURRENTLY, outside a transaction, so that a deployment adding it to a large ledger_entries does not
 * block postings while it builds. Should a build fail it leaves an invalid index behind: DROP INDEX CONCURRENTLY it
 * and migrate again.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX CONCURRENTLY ledger_entries_account_time_idx ON ledger_entries (account_id, created_at, seq)
      INCLUDE (balance_after, credits_to_date, debits_to_date)`);
  await knex.raw('DROP INDEX CONCURRENTLY ledger_entries_account_created_idx');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX CONCURRENTLY ledger_entries_account_created_idx ON ledger_entries (account_id, created_at)');
  await knex.raw('DROP INDEX CONCURRENTLY ledger_entries_account_time_idx');
}
