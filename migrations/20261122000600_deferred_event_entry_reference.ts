import type { Knex } from 'knex';

/**
 * An inbound payment event claims its request id before its ledger entry exists (so a duplicate is
 * recognised as one before anything is posted), and names that entry in the same insert: the
 * reference is checked at commit instead.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE inbound_events ALTER CONSTRAINT inbound_events_entry_id_fkey DEFERRABLE INITIALLY DEFERRED');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE inbound_events ALTER CONSTRAINT inbound_events_entry_id_fkey NOT DEFERRABLE');
}
