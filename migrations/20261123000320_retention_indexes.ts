import type { Knex } from 'knex';

/**
 * What the retention job looks for, indexed so each run reads only rows it will change: events that
 * failed verification, events whose payload is still kept, and workflow starts already made.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX inbound_events_unverified_idx ON inbound_events (id) WHERE NOT signature_valid;
    CREATE INDEX inbound_events_payload_kept_idx ON inbound_events (id) WHERE signature_valid AND (payload IS NOT NULL OR raw_body IS NOT NULL);
    CREATE INDEX workflow_outbox_started_idx ON workflow_outbox (created_at) WHERE started_at IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX inbound_events_unverified_idx, inbound_events_payload_kept_idx, workflow_outbox_started_idx');
}
