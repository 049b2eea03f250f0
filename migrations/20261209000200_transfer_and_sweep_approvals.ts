import type { Knex } from 'knex';

/**
 * The approval policy's transfers above an amount and its balance sweeps: a transfer between accounts above
 * `transfer_above` waits for a second person with its amount reserved (a `transfer_approval` reservation owned by the
 * approval's id, which the transfer keeps as its own id once approved); with `sweeps`, each payout a balance sweep
 * makes waits as a held payout whose reasons name `balance_sweep` and which has no maker (nobody asked for it then).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE approval_policies
      ADD COLUMN transfer_above bigint CHECK (transfer_above > 0),
      ADD COLUMN sweeps boolean NOT NULL DEFAULT false;

    ALTER TABLE payout_approvals DROP CONSTRAINT payout_approvals_one_maker;
    ALTER TABLE payout_approvals ADD CONSTRAINT payout_approvals_one_maker
      CHECK ((maker_user_id IS NULL) <> (maker_api_key_id IS NULL)
             OR (maker_user_id IS NULL AND maker_api_key_id IS NULL AND reasons = ARRAY['balance_sweep']));

    CREATE TABLE transfer_approvals (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      from_account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      to_account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      amount bigint NOT NULL CHECK (amount > 0),
      narration text NOT NULL,
      idempotency_key text NOT NULL,
      request_hash text NOT NULL,
      source text NOT NULL CHECK (source IN ('api', 'dashboard')),
      maker_user_id uuid REFERENCES dashboard_users(id),
      status text NOT NULL DEFAULT 'awaiting_approval' CHECK (status IN ('awaiting_approval', 'approved', 'rejected', 'expired')),
      expires_at timestamptz NOT NULL,
      decided_by uuid REFERENCES dashboard_users(id),
      decided_at timestamptz,
      decision_note text,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT transfer_approvals_between_two_accounts CHECK (from_account_id <> to_account_id),
      CONSTRAINT transfer_approvals_dashboard_has_user CHECK ((source = 'dashboard') = (maker_user_id IS NOT NULL)),
      CONSTRAINT transfer_approvals_decided CHECK ((status = 'awaiting_approval') = (decided_at IS NULL))
    );
    CREATE INDEX transfer_approvals_tenant_status_idx ON transfer_approvals (tenant_id, status, id);`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE transfer_approvals;
    ALTER TABLE payout_approvals DROP CONSTRAINT payout_approvals_one_maker;
    ALTER TABLE payout_approvals ADD CONSTRAINT payout_approvals_one_maker CHECK ((maker_user_id IS NULL) <> (maker_api_key_id IS NULL)) NOT VALID;
    ALTER TABLE approval_policies DROP COLUMN transfer_above, DROP COLUMN sweeps;`);
}
