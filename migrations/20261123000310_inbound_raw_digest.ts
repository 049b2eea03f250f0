import type { Knex } from 'knex';

/** Events that fail verification keep a SHA-256 of their bytes and a short prefix, not the bytes. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE inbound_events ADD COLUMN raw_sha256 text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE inbound_events DROP COLUMN raw_sha256');
}
