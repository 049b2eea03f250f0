import type { Knex } from 'knex';

/**
 * What stays in the database of the history's months that `history:detach` archives (see docs/scaling.md#archived-months),
 * written in the transaction that detaches them:
 *
 * - ledger_archived_accounts (the ledger's): per account, what its archived entries leave behind: its last archived
 *   entry's running columns and seq, the count and sums of its archived entries, and the month the archive ends before.
 *   A statement's opening balance and a balance at an instant read it when no entry still attached is earlier;
 *   ledger:verify starts each account's totals and running columns from it.
 * - ledger_archived_system_postings (the ledger's): per tenant and system account, the count and sum of its archived
 *   postings (system-posting rows and entries' counters), from which ledger:verify and the books start.
 * - history_archived_rows (the history's): the id of every archived entry, provider payload, tenant event and delivery,
 *   so that a record naming one is known to name an archived row rather than a missing one.
 *
 * Each archived month adds to them (chained): an account's row is replaced by the later month's last entry, and its
 * counts and sums grow.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ledger_archived_accounts (
      account_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      archived_before date NOT NULL,
      entries bigint NOT NULL CHECK (entries > 0),
      credits bigint NOT NULL,
      debits bigint NOT NULL,
      last_entry_id uuid NOT NULL,
      last_seq bigint NOT NULL,
      last_created_at timestamptz NOT NULL,
      balance_after bigint NOT NULL,
      credits_to_date bigint NOT NULL,
      debits_to_date bigint NOT NULL
    );
    CREATE INDEX ledger_archived_accounts_tenant_idx ON ledger_archived_accounts (tenant_id);
    CREATE TABLE ledger_archived_system_postings (
      tenant_id uuid NOT NULL,
      account text NOT NULL,
      archived_before date NOT NULL,
      postings bigint NOT NULL,
      amount bigint NOT NULL,
      PRIMARY KEY (tenant_id, account)
    );
    CREATE TABLE history_archived_rows (
      table_name text NOT NULL,
      id uuid NOT NULL,
      tenant_id uuid,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (table_name, id)
    );`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE history_archived_rows, ledger_archived_system_postings, ledger_archived_accounts');
}
