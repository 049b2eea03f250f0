import type { Knex } from 'knex';

/**
 * Payments posted in a group stored their webhook's payload as a JSON string inside the jsonb column; every
 * other event stores the document. Those rows become documents too, so a payload's fields read the same way
 * whichever path recorded it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE inbound_events SET payload = CAST(payload #>> '{}' AS jsonb) WHERE jsonb_typeof(payload) = 'string'`);
}

/** Nothing to undo: a document is what every other row holds. */
export async function down(): Promise<void> {}
