import type { Knex } from 'knex';

/**
 * The batcher claims queued credits tenant by tenant (each tenant with credits waiting gets a batch
 * before any tenant gets a second), so it finds the tenants with a loose index scan and each one's
 * oldest credits through this index, whatever the backlog of one of them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE INDEX confirmation_claims_queued_by_tenant_idx ON confirmation_claims (tenant_id, queued_at) WHERE batch_id IS NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX confirmation_claims_queued_by_tenant_idx');
}
