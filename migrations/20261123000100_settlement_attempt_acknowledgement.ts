import type { Knex } from 'knex';

/**
 * An attempt's reference may be replaced by a new one only once the provider's lookup has failed it:
 * the attempt keeps when it was last submitted (the "not found" grace counts from there) and whether
 * the provider ever acknowledged it (such a reference is never failed for being "not found").
 * `rejected` is a definite 4xx on submit that lookups have not confirmed yet.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE settlement_attempts
      ADD COLUMN last_submitted_at timestamptz,
      ADD COLUMN acknowledged_at timestamptz;
    UPDATE settlement_attempts SET last_submitted_at = created_at;
    UPDATE settlement_attempts SET acknowledged_at = updated_at WHERE outcome IN ('accepted', 'success', 'refunded');
    ALTER TABLE settlement_attempts DROP CONSTRAINT settlement_attempts_outcome_check;
    ALTER TABLE settlement_attempts ADD CONSTRAINT settlement_attempts_outcome_check
      CHECK (outcome IN ('submitting', 'accepted', 'ambiguous', 'rejected', 'failed', 'success', 'refunded'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE settlement_attempts SET outcome = 'failed' WHERE outcome = 'rejected';
    ALTER TABLE settlement_attempts DROP CONSTRAINT settlement_attempts_outcome_check;
    ALTER TABLE settlement_attempts ADD CONSTRAINT settlement_attempts_outcome_check
      CHECK (outcome IN ('submitting', 'accepted', 'ambiguous', 'failed', 'success', 'refunded'));
    ALTER TABLE settlement_attempts DROP COLUMN last_submitted_at, DROP COLUMN acknowledged_at;
  `);
}
