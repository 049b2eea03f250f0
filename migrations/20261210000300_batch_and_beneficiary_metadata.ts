import type { Knex } from 'knex';

/**
 * The tenant's own data on settlement batches, their items and beneficiaries, as on accounts, settlements and internal
 * transfers (20261209000600): string keys to string values, `metadata @> {...}` filters served by a GIN index
 * (jsonb_path_ops serves exactly `@>`). A batch's and an item's are fixed when the batch is made; a beneficiary's changes.
 */
const TABLES = ['settlement_batches', 'settlement_batch_items', 'beneficiaries'];

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`
      ALTER TABLE ${table} ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb;
      CREATE INDEX ${table}_metadata_idx ON ${table} USING gin (metadata jsonb_path_ops);`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`
      DROP INDEX ${table}_metadata_idx;
      ALTER TABLE ${table} DROP COLUMN metadata;`);
  }
}
