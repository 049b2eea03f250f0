import type { Knex } from 'knex';

/**
 * A tenant's saved payout destinations. `account_name` is the provider's name for the account when it was
 * last looked up (`name_checked_at`). A deleted beneficiary keeps its row (`deleted_at`) so a settlement
 * that named it still reads; one destination has at most one live beneficiary per tenant. A settlement
 * made to a beneficiary names it in `settlements.beneficiary_id`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE beneficiaries (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      bank_code text NOT NULL,
      account_number text NOT NULL,
      account_name text NOT NULL,
      nickname text,
      name_checked_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    );
    CREATE UNIQUE INDEX beneficiaries_live_destination_key ON beneficiaries (tenant_id, bank_code, account_number) WHERE deleted_at IS NULL;
    CREATE INDEX beneficiaries_tenant_idx ON beneficiaries (tenant_id, id) WHERE deleted_at IS NULL;

    ALTER TABLE settlements ADD COLUMN beneficiary_id uuid REFERENCES beneficiaries(id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE settlements DROP COLUMN beneficiary_id;
    DROP TABLE beneficiaries;
  `);
}
