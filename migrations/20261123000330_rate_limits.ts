import type { Knex } from 'knex';

/**
 * rate-limiter-flexible's counters (its own table layout), shared by every API process. UNLOGGED:
 * counters need no crash safety (a restart of Postgres forgets them, which only forgives), and they
 * then cost no WAL on every settle and sign-in.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE UNLOGGED TABLE rate_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rate_limits');
}
