import type { Knex } from 'knex';

/**
 * Each tenant's last write position on the primary, which bounds its reads from a replica (docs/scaling.md#read-replicas).
 * Unlogged: it is only read on the primary, and a row written per write request costs no WAL. A crash empties it;
 * reads then wait only on the replica's lag bound until the tenant writes again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE UNLOGGED TABLE tenant_write_positions (tenant_id uuid PRIMARY KEY, lsn pg_lsn NOT NULL)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE tenant_write_positions');
}
