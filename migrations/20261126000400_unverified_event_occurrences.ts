import type { Knex } from 'knex';

/**
 * A body that fails verification is stored once, by its digest, with how often it came: a sender
 * repeating the same junk adds to a count instead of rows. Copies already stored collapse into the
 * first of them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE inbound_events ADD COLUMN occurrences integer NOT NULL DEFAULT 1');
  await knex.raw(`
    WITH copies AS (
      SELECT id, first_value(id) OVER (PARTITION BY raw_sha256 ORDER BY id) AS first_id, count(*) OVER (PARTITION BY raw_sha256) AS copies
        FROM inbound_events
       WHERE NOT signature_valid AND raw_sha256 IS NOT NULL
    ), counted AS (
      UPDATE inbound_events e SET occurrences = c.copies FROM copies c WHERE e.id = c.id AND c.id = c.first_id AND c.copies > 1
    )
    DELETE FROM inbound_events e USING copies c WHERE e.id = c.id AND c.id <> c.first_id`);
  await knex.raw(
    'CREATE UNIQUE INDEX inbound_events_unverified_digest_idx ON inbound_events (raw_sha256) WHERE NOT signature_valid AND raw_sha256 IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX inbound_events_unverified_digest_idx');
  await knex.raw('ALTER TABLE inbound_events DROP COLUMN occurrences');
}
