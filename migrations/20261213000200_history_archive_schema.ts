import type { Knex } from 'knex';

/**
 * The schema `history:detach` moves each detached month into (`history_archive.ledger_entries_y2026m03`, …), out of
 * the service's own: nothing the service reads or copies (a tenant move reads the catalog of its schema) meets an
 * archived month, and an operator dumps and drops them there (see docs/scaling.md#archived-months). Rolled back only
 * once it is empty: archived rows are never dropped by a migration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE SCHEMA IF NOT EXISTS history_archive');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP SCHEMA IF EXISTS history_archive RESTRICT');
}
