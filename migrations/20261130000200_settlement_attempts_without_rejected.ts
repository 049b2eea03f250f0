import type { Knex } from 'knex';

/**
 * A settlement attempt's outcome is never `rejected`: a refusal on submit is either a documented "not
 * created" answer (`failed`) or one that leaves the reference undecided (`ambiguous`). An attempt still
 * marked `rejected` was undecided, so it becomes `ambiguous`, followed by lookups the same way (its
 * `updated_at` stays: reconciliation reads it as when the attempt last changed, and it did not), and the
 * constraint refuses the value from now on.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE settlement_attempts SET outcome = 'ambiguous' WHERE outcome = 'rejected';
    ALTER TABLE settlement_attempts DROP CONSTRAINT settlement_attempts_outcome_check;
    ALTER TABLE settlement_attempts ADD CONSTRAINT settlement_attempts_outcome_check
      CHECK (outcome IN ('submitting', 'accepted', 'ambiguous', 'failed', 'success', 'refunded'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE settlement_attempts DROP CONSTRAINT settlement_attempts_outcome_check;
    ALTER TABLE settlement_attempts ADD CONSTRAINT settlement_attempts_outcome_check
      CHECK (outcome IN ('submitting', 'accepted', 'ambiguous', 'rejected', 'failed', 'success', 'refunded'));
  `);
}
