import type { Knex } from 'knex';

/**
 * The tenant's own data on its records: string keys to string values (bounds in src/http/metadata.ts), on accounts,
 * settlements and internal transfers, never on ledger entries. A list filtered by metadata asks `metadata @> {...}`
 * within one tenant; the GIN index (jsonb_path_ops serves exactly `@>`) finds the tagged rows, the tenant condition
 * narrows them.
 */
const TABLES = ['virtual_accounts', 'settlements', 'internal_transfers'];
const HELD = ['payout_approvals', 'transfer_approvals'];

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`
      ALTER TABLE ${table} ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb;
      CREATE INDEX ${table}_metadata_idx ON ${table} USING gin (metadata jsonb_path_ops);`);
  }
  // A payout or transfer held for approval keeps the metadata of the settlement or transfer it becomes.
  for (const table of HELD) await knex.raw(`ALTER TABLE ${table} ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of HELD) await knex.raw(`ALTER TABLE ${table} DROP COLUMN metadata`);
  for (const table of TABLES) {
    await knex.raw(`
      DROP INDEX ${table}_metadata_idx;
      ALTER TABLE ${table} DROP COLUMN metadata;`);
  }
}
