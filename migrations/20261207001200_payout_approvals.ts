import type { Knex } from 'knex';

/**
 * A tenant's approval policy (no row: off) and the payouts it holds for a second person: each awaits approval
 * with its money reserved (a `payout_approval` reservation owned by the approval's id) until approved (it becomes
 * the settlement of the same merchantTxRef), rejected, or expired at `expires_at`. The maker is a user or an API key.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE approval_policies (
      tenant_id uuid PRIMARY KEY REFERENCES tenants(id),
      payout_at_or_above bigint CHECK (payout_at_or_above > 0),
      new_destination boolean NOT NULL DEFAULT false,
      expires_after_seconds integer NOT NULL DEFAULT 86400 CHECK (expires_after_seconds BETWEEN 1 AND 604800),
      updated_by uuid,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE payout_approvals (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      merchant_tx_ref text NOT NULL UNIQUE,
      amount bigint NOT NULL CHECK (amount > 0),
      bank_code text NOT NULL,
      account_number text NOT NULL,
      narration text NOT NULL,
      account_name text,
      beneficiary_id uuid,
      reasons text[] NOT NULL CHECK (cardinality(reasons) > 0),
      status text NOT NULL DEFAULT 'awaiting_approval' CHECK (status IN ('awaiting_approval', 'approved', 'rejected', 'expired')),
      maker_user_id uuid,
      maker_api_key_id uuid,
      expires_at timestamptz NOT NULL,
      decided_by uuid,
      decided_at timestamptz,
      decision_note text,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT payout_approvals_one_maker CHECK ((maker_user_id IS NULL) <> (maker_api_key_id IS NULL)),
      CONSTRAINT payout_approvals_decided CHECK ((status = 'awaiting_approval') = (decided_at IS NULL))
    );
    CREATE INDEX payout_approvals_tenant_status_idx ON payout_approvals (tenant_id, status, id);
    -- Whether the tenant has paid a destination before (the policy's first payout to a new destination).
    CREATE INDEX settlements_tenant_destination_idx ON settlements (tenant_id, account_number, bank_code);`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX settlements_tenant_destination_idx; DROP TABLE payout_approvals; DROP TABLE approval_policies');
}
