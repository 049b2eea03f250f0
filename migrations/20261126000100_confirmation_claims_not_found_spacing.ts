import type { Knex } from 'knex';

/**
 * A batch reverses a credit the provider never showed only on "not found" answers spread over the
 * confirmation window (NotFoundRule in confirmation-rules.ts): an answer counts only a set time after
 * the last counted one, so the claim keeps when that was. Counts made before, when every answer
 * counted however close together, start again from nothing: they may be bunched, and counting again
 * only delays a reversal, never brings one forward.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE confirmation_claims ADD COLUMN last_not_found_counted_at timestamptz;
    UPDATE confirmation_claims SET not_found_answers = 0 WHERE not_found_answers > 0;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE confirmation_claims DROP COLUMN last_not_found_counted_at');
}
