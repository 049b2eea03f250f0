import type { Knex } from 'knex';

/** When the platform operator allowed the tenant KYC limits looser than the platform's (null: not allowed). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tenants ADD COLUMN loose_kyc_limits_allowed_at timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tenants DROP COLUMN loose_kyc_limits_allowed_at');
}
