import type { Knex } from 'knex';

/**
 * When the provider's lookup first answered "not found" for an attempt's reference since its last
 * submission. A reference the provider never acknowledged fails only once "not found" has lasted
 * SETTLEMENT_NOT_FOUND_GRACE from that first answer (so never on one answer, however late it comes);
 * a new submission clears it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE settlement_attempts ADD COLUMN not_found_since timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE settlement_attempts DROP COLUMN not_found_since');
}
