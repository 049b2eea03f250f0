import type { Knex } from 'knex';

/**
 * Only the provider's own lookup acknowledges a reference now; a submission's answer (accepted, or a
 * "duplicate" refusal) no longer does. The undecided attempts of open settlements that an answer
 * acknowledged become unacknowledged, so "not found" for the grace leads to a probe of the same
 * reference instead of waiting for ever. One a lookup had shown is acknowledged again by its next
 * lookup that finds it; a probe of it is answered as a duplicate and changes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE settlement_attempts sa
       SET acknowledged_at = NULL, updated_at = now()
      FROM settlements s
     WHERE s.id = sa.settlement_id
       AND s.status IN ('pending', 'processing')
       AND sa.outcome = 'accepted'
       AND sa.acknowledged_at IS NOT NULL`);
}

/** Nothing to undo: an unacknowledged attempt is the safe reading under either rule. */
export async function down(): Promise<void> {}
