import type { Knex } from 'knex';

/**
 * What the provider answered a per-payment confirmation (`paymentConfirmationWorkflow`) about a
 * provisional credit, kept by its activities: whether the provider ever showed the transaction, and the
 * "not found" answers counted by the not-found rule (spaced, by the database's clock). The reverse
 * activity reverses a credit the provider does not know only when these rows say the rule is met,
 * whatever the workflow that calls it was started with. Batches keep the same memory on their claims.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE confirmation_answers (
      entry_id uuid PRIMARY KEY REFERENCES ledger_entries(id),
      lookups int NOT NULL DEFAULT 0,
      first_seen_at timestamptz,
      not_found_answers int NOT NULL DEFAULT 0,
      last_not_found_counted_at timestamptz
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE confirmation_answers');
}
