import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE customers (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      external_ref text NOT NULL CHECK (length(external_ref) BETWEEN 1 AND 100),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      bvn_enc text,
      bvn_last4 text CHECK (bvn_last4 ~ '^[0-9]{4}$'),
      nin_enc text,
      nin_last4 text CHECK (nin_last4 ~ '^[0-9]{4}$'),
      kyc_tier smallint NOT NULL DEFAULT 1 CHECK (kyc_tier IN (1, 2, 3)),
      kyc_status text NOT NULL DEFAULT 'none' CHECK (kyc_status IN ('none', 'pending_review', 'approved', 'rejected')),
      kyc_review_reason text,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, external_ref)
    );
    CREATE INDEX customers_tenant_id_idx ON customers (tenant_id, id);
    CREATE INDEX customers_pending_review_idx ON customers (tenant_id, updated_at) WHERE kyc_status = 'pending_review';

    CREATE TABLE customer_audit (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      customer_id uuid NOT NULL REFERENCES customers(id),
      user_id uuid REFERENCES dashboard_users(id),
      action text NOT NULL CHECK (action IN ('kyc_submitted', 'kyc_approved', 'kyc_rejected', 'suspended', 'reactivated')),
      detail jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX customer_audit_customer_idx ON customer_audit (customer_id, created_at);

    CREATE TABLE virtual_accounts (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      customer_id uuid NOT NULL REFERENCES customers(id),
      account_ref text NOT NULL UNIQUE,
      bank_account_number text NOT NULL UNIQUE CHECK (bank_account_number ~ '^[0-9]{10}$'),
      bank_account_name text NOT NULL,
      bank_name text NOT NULL,
      currency text NOT NULL DEFAULT 'NGN' CHECK (currency = 'NGN'),
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'expired')),
      callback_url text,
      expected_amount bigint CHECK (expected_amount > 0),
      ledger_balance bigint NOT NULL DEFAULT 0,
      pending_credits bigint NOT NULL DEFAULT 0 CHECK (pending_credits >= 0),
      total_credits bigint NOT NULL DEFAULT 0 CHECK (total_credits >= 0),
      total_debits bigint NOT NULL DEFAULT 0 CHECK (total_debits >= 0),
      last_seq bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT ledger_balance_is_credits_minus_debits CHECK (ledger_balance = total_credits - total_debits),
      CONSTRAINT available_balance_not_negative CHECK (ledger_balance >= pending_credits)
    );
    CREATE INDEX virtual_accounts_tenant_idx ON virtual_accounts (tenant_id, id);
    CREATE INDEX virtual_accounts_customer_idx ON virtual_accounts (customer_id, id);

    CREATE TABLE idempotency_keys (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      scope text NOT NULL CHECK (scope IN ('account', 'settlement')),
      key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
      request_hash text NOT NULL,
      resource_ref text NOT NULL,
      resource_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, scope, key)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE idempotency_keys, virtual_accounts, customer_audit, customers');
}
