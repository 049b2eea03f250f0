import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE inbound_events (
      id uuid PRIMARY KEY,
      request_id text,
      event_type text,
      category text NOT NULL CHECK (category IN ('payment', 'misdirected', 'sig_invalid', 'non_payment_event', 'processing_error')),
      signature_valid boolean NOT NULL,
      tenant_id uuid REFERENCES tenants(id),
      account_id uuid REFERENCES virtual_accounts(id),
      entry_id uuid REFERENCES ledger_entries(id),
      transaction_id text,
      alias_account_ref text,
      gross_amount bigint,
      fee bigint,
      sender_name text,
      payload jsonb,
      raw_body text,
      error text,
      flags text[] NOT NULL DEFAULT '{}',
      assigned_account_id uuid REFERENCES virtual_accounts(id),
      assigned_entry_id uuid REFERENCES ledger_entries(id),
      assigned_by uuid REFERENCES dashboard_users(id),
      assigned_at timestamptz,
      received_at timestamptz NOT NULL DEFAULT now()
    );
    -- Only a signature-valid event claims its request id: a forged copy never blocks the genuine one.
    CREATE UNIQUE INDEX inbound_events_request_id_key ON inbound_events (request_id) WHERE signature_valid AND request_id IS NOT NULL;
    CREATE INDEX inbound_events_tenant_category_idx ON inbound_events (tenant_id, category, id);
    CREATE INDEX inbound_events_misdirected_idx ON inbound_events (id) WHERE category = 'misdirected';

    CREATE TABLE settlements (
      id uuid PRIMARY KEY,
      merchant_tx_ref text NOT NULL UNIQUE,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      debit_entry_id uuid NOT NULL UNIQUE REFERENCES ledger_entries(id),
      reversal_entry_id uuid REFERENCES ledger_entries(id),
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL DEFAULT 'NGN' CHECK (currency = 'NGN'),
      provider_fee bigint CHECK (provider_fee >= 0),
      bank_code text NOT NULL CHECK (bank_code ~ '^[0-9]{3,6}$'),
      account_number text NOT NULL CHECK (account_number ~ '^[0-9]{10}$'),
      account_name text,
      narration text NOT NULL DEFAULT '',
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'success', 'failed', 'refunded')),
      attempt_count integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
      failure_reason text,
      provider_transfer_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX settlements_tenant_idx ON settlements (tenant_id, id);

    CREATE TABLE settlement_attempts (
      settlement_id uuid NOT NULL REFERENCES settlements(id),
      attempt_no integer NOT NULL CHECK (attempt_no > 0),
      provider_ref text NOT NULL UNIQUE,
      outcome text NOT NULL CHECK (outcome IN ('submitting', 'accepted', 'ambiguous', 'failed', 'success', 'refunded')),
      provider_transfer_id text,
      detail text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (settlement_id, attempt_no)
    );

    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY,
      event_id uuid NOT NULL,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      inbound_event_id uuid REFERENCES inbound_events(id),
      replay_of uuid REFERENCES webhook_deliveries(id),
      callback_url text NOT NULL,
      payload text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'retrying', 'succeeded', 'dead_letter')),
      attempt_count integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
      last_status_code integer,
      last_error text,
      next_retry_at timestamptz,
      event_received_at timestamptz NOT NULL,
      delivered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT dead_letter_has_no_next_retry CHECK (status <> 'dead_letter' OR next_retry_at IS NULL)
    );
    CREATE INDEX webhook_deliveries_tenant_status_idx ON webhook_deliveries (tenant_id, status, id);

    CREATE TABLE webhook_attempts (
      delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id),
      attempt_no integer NOT NULL CHECK (attempt_no > 0),
      attempted_at timestamptz NOT NULL,
      status_code integer,
      error text,
      duration_ms integer NOT NULL CHECK (duration_ms >= 0),
      PRIMARY KEY (delivery_id, attempt_no)
    );

    -- Workflows to start, written in the same transaction as the rows they act on; the sweep
    -- starts whatever a crash or an unreachable Temporal left behind.
    CREATE TABLE workflow_outbox (
      workflow_id text PRIMARY KEY,
      workflow_type text NOT NULL,
      args jsonb NOT NULL,
      search_attributes jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz
    );
    CREATE INDEX workflow_outbox_unstarted_idx ON workflow_outbox (created_at) WHERE started_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE workflow_outbox, webhook_attempts, webhook_deliveries, settlement_attempts, settlements, inbound_events');
}
