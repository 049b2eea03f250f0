import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE fee_tiers (
      id serial PRIMARY KEY,
      min_send bigint NOT NULL CHECK (min_send >= 0),
      max_send bigint CHECK (max_send >= min_send),
      fee bigint NOT NULL CHECK (fee >= 0),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    -- SPEC.md's tiers on the amount the payer sends, in kobo: below 5,000 -> 10; 5,000 to 50,000 -> 25; above -> 50.
    INSERT INTO fee_tiers (min_send, max_send, fee) VALUES
      (0, 499999, 1000),
      (500000, 5000000, 2500),
      (5000001, NULL, 5000);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE fee_tiers');
}
