import type { Knex } from 'knex';

/**
 * Recovering an endpoint's events pages in commit order: each event keeps the id of the transaction that
 * recorded it (xid8), and a page returns only events of transactions older than the oldest one still in
 * flight, so an event that commits after a page was read always sorts after that page, whatever its id
 * or time. Events recorded before this migration are all committed: they share id 0 and come first. The
 * constant default then the new one keep the change to the catalogue (no table rewrite).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE tenant_events ADD COLUMN xact_id xid8 NOT NULL DEFAULT '0';
    ALTER TABLE tenant_events ALTER COLUMN xact_id SET DEFAULT pg_current_xact_id();
    CREATE INDEX tenant_events_tenant_xact_idx ON tenant_events (tenant_id, xact_id, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX tenant_events_tenant_xact_idx;
    ALTER TABLE tenant_events DROP COLUMN xact_id;
  `);
}
