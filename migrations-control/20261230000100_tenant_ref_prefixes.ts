import type { Knex } from 'knex';

/**
 * The account-reference prefix of each tenant placed through the directory, unique across every cluster: the front
 * of the API routes a provider webhook by it. A tenant made before the directory has no row; a new prefix is checked
 * against every cluster's tenants too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE tenant_ref_prefixes (
      tenant_id uuid PRIMARY KEY,
      ref_prefix text NOT NULL CONSTRAINT tenant_ref_prefixes_ref_prefix_key UNIQUE,
      reserved_at timestamptz NOT NULL DEFAULT now()
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE tenant_ref_prefixes');
}
