import type { Knex } from 'knex';

/**
 * Confirmation compares the provider's account reference with the one the payer used; for a
 * misdirected payment an operator assigned, that is the reference on its inbound event, found by the
 * entry it was posted as. Partial: only assigned events (a handful) are in it, so ingest pays nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE INDEX inbound_events_assigned_entry_idx ON inbound_events (assigned_entry_id) WHERE assigned_entry_id IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX inbound_events_assigned_entry_idx');
}
