import type { Knex } from 'knex';

/** How far each incremental scan of the convergence sweep got, so the next one starts there. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE sweep_watermarks (
      name text PRIMARY KEY,
      scanned_until timestamptz NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE sweep_watermarks');
}
