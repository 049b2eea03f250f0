import type { Knex } from 'knex';

/**
 * The directory of the control database: the cluster each tenant lives on. A tenant with no row lives on the first
 * cluster of DATABASE_CLUSTERS, so a database from before the directory needs no backfill. `moving_since` is set while
 * a move copies the tenant: its requests are answered 503 until the move finishes or is abandoned.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE tenant_placements (
      tenant_id uuid PRIMARY KEY,
      cluster text NOT NULL,
      moving_since timestamptz NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE tenant_placements');
}
