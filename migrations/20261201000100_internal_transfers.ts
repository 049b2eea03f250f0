import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_scope_check;
    ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_scope_check CHECK (scope IN ('account', 'settlement', 'transfer'));

    -- A transfer between two accounts of one tenant: one ledger transaction (the debit and the credit of kind
    -- 'transfer'), written with this row, its Idempotency-Key claim and its transfer.completed event.
    CREATE TABLE internal_transfers (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      from_account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      to_account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      amount bigint NOT NULL CHECK (amount > 0),
      narration text NOT NULL,
      transaction_id uuid NOT NULL UNIQUE,
      debit_entry_id uuid NOT NULL UNIQUE REFERENCES ledger_entries(id),
      credit_entry_id uuid NOT NULL UNIQUE REFERENCES ledger_entries(id),
      idempotency_key text NOT NULL,
      request_hash text NOT NULL,
      source text NOT NULL CHECK (source IN ('api', 'dashboard')),
      created_by uuid REFERENCES dashboard_users(id),
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT internal_transfers_between_two_accounts CHECK (from_account_id <> to_account_id),
      CONSTRAINT internal_transfers_dashboard_has_user CHECK ((source = 'dashboard') = (created_by IS NOT NULL))
    );
    -- An account's transfers, newest first, in either direction (ids are UUIDv7: id order is creation order).
    CREATE INDEX internal_transfers_from_idx ON internal_transfers (from_account_id, id);
    CREATE INDEX internal_transfers_to_idx ON internal_transfers (to_account_id, id);
  `);
}

/**
 * Rolling back keeps every transfer's ledger transaction (ledger facts) and its key's claim; the transfers'
 * rows go, and new 'transfer' keys are refused.
 */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE internal_transfers;
    ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_scope_check;
    ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_scope_check CHECK (scope IN ('account', 'settlement')) NOT VALID;
  `);
}
