import type { Knex } from 'knex';

/**
 * Reconciliation against the provider's records.
 *
 * - `adjustment` entries answer an earlier entry and name it in reverses_entry_id (the unique index
 *   keeps it to one answer per entry): a credit that restores a reversal the provider has since
 *   contradicted, or an operator's compensating debit of a confirmed credit the provider took back.
 * - That debit may take the account below zero, exactly as the reversal of a spent provisional
 *   credit may: only_reversals_overdraw (20261123000300) lets adjustments overdraw too, and the
 *   posting statement keeps the account's deficit flag as it does for a reversal.
 * - Runs, their findings (exceptions, each open one once per subject), the provider's rows of a run
 *   in flight (deleted when it finishes) and the per-account daily totals.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
    ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('payment', 'settlement', 'reversal', 'adjustment'));
    ALTER TABLE ledger_entries DROP CONSTRAINT reversal_references_original;
    ALTER TABLE ledger_entries ADD CONSTRAINT reversal_references_original CHECK ((kind IN ('reversal', 'adjustment')) = (reverses_entry_id IS NOT NULL));

    ALTER TABLE ledger_entries DROP CONSTRAINT only_reversals_overdraw;
    ALTER TABLE ledger_entries ADD CONSTRAINT only_reversals_overdraw CHECK (direction = 'credit' OR kind IN ('reversal', 'adjustment') OR balance_after >= 0);

    -- The records of payments a run credited, for a webhook that arrives after it (answered as a duplicate).
    CREATE INDEX inbound_events_found_by_reconciliation_idx ON inbound_events (transaction_id) WHERE flags @> ARRAY['found_by_reconciliation'];

    -- Misdirected payments by provider transaction, for the runs that meet them in the provider's listing.
    CREATE INDEX inbound_events_misdirected_txn_idx ON inbound_events (transaction_id) WHERE category = 'misdirected';
    -- Settlements still open, for the runs that report the ones pending long after their attempts.
    CREATE INDEX settlements_open_by_updated_idx ON settlements (updated_at) WHERE status IN ('pending', 'processing');

    CREATE TABLE reconciliation_runs (
      id uuid PRIMARY KEY,
      -- A scheduled or CLI run covers the platform (tenant_id NULL) and has one child run per tenant.
      parent_run_id uuid REFERENCES reconciliation_runs(id),
      tenant_id uuid REFERENCES tenants(id),
      trigger text NOT NULL CHECK (trigger IN ('schedule', 'cli', 'tenant', 'operator')),
      window_from timestamptz NOT NULL,
      window_to timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
      workflow_id text UNIQUE,
      requested_by uuid REFERENCES dashboard_users(id),
      provider_transactions integer NOT NULL DEFAULT 0,
      matched integer NOT NULL DEFAULT 0,
      repaired integer NOT NULL DEFAULT 0,
      reported integer NOT NULL DEFAULT 0,
      alerts integer NOT NULL DEFAULT 0,
      in_flight integer NOT NULL DEFAULT 0,
      lookups integer NOT NULL DEFAULT 0,
      days_compared integer,
      days_differing integer,
      wallet jsonb,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      CONSTRAINT reconciliation_window_is_ordered CHECK (window_to > window_from),
      CONSTRAINT reconciliation_child_runs_have_a_tenant CHECK (parent_run_id IS NULL OR tenant_id IS NOT NULL)
    );
    CREATE INDEX reconciliation_runs_tenant_idx ON reconciliation_runs (tenant_id, id);
    CREATE INDEX reconciliation_runs_parent_idx ON reconciliation_runs (parent_run_id, tenant_id);

    CREATE TABLE reconciliation_exceptions (
      id uuid PRIMARY KEY,
      tenant_id uuid REFERENCES tenants(id),
      kind text NOT NULL,
      severity text NOT NULL CHECK (severity IN ('alert', 'warning', 'info')),
      status text NOT NULL CHECK (status IN ('open', 'repaired', 'resolved')),
      subject text NOT NULL,
      account_id uuid REFERENCES virtual_accounts(id),
      entry_id uuid REFERENCES ledger_entries(id),
      settlement_id uuid REFERENCES settlements(id),
      provider_txn_id text,
      details jsonb NOT NULL DEFAULT '{}',
      first_run_id uuid NOT NULL REFERENCES reconciliation_runs(id),
      last_run_id uuid NOT NULL REFERENCES reconciliation_runs(id),
      occurrences integer NOT NULL DEFAULT 1 CHECK (occurrences > 0),
      repair_entry_id uuid REFERENCES ledger_entries(id),
      resolution text CHECK (resolution IN ('noted', 'compensated', 'no_longer_found')),
      resolution_note text,
      resolved_by uuid REFERENCES dashboard_users(id),
      resolved_via text CHECK (resolved_via IN ('dashboard', 'cli', 'reconciliation')),
      resolved_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT reconciliation_resolution_is_recorded CHECK ((status = 'resolved') = (resolution IS NOT NULL AND resolved_at IS NOT NULL AND resolved_via IS NOT NULL))
    );
    -- One open finding per subject: a later run that meets it again counts an occurrence.
    CREATE UNIQUE INDEX reconciliation_exceptions_open_idx ON reconciliation_exceptions (kind, subject) WHERE status = 'open';
    CREATE INDEX reconciliation_exceptions_tenant_idx ON reconciliation_exceptions (tenant_id, status, id);
    -- Resolved findings by subject: a later run acknowledges them instead of reporting them again.
    CREATE INDEX reconciliation_exceptions_subject_idx ON reconciliation_exceptions (subject, kind) WHERE status = 'resolved';

    CREATE TABLE reconciliation_run_exceptions (
      run_id uuid NOT NULL REFERENCES reconciliation_runs(id),
      exception_id uuid NOT NULL REFERENCES reconciliation_exceptions(id),
      PRIMARY KEY (run_id, exception_id)
    );

    -- The provider's rows of a run in flight, one per provider transaction (a retried page adds nothing).
    CREATE TABLE reconciliation_provider_rows (
      run_id uuid NOT NULL,
      provider_txn_id text NOT NULL,
      direction text NOT NULL CHECK (direction IN ('credit', 'debit')),
      status text NOT NULL,
      raw_status text,
      amount bigint,
      fee bigint,
      currency text,
      time_created timestamptz,
      merchant_tx_ref text,
      sender_name text,
      narration text,
      tenant_id uuid,
      account_id uuid,
      entry_id uuid,
      settlement_id uuid,
      -- From a single lookup of a ledger record the listings did not show.
      looked_up boolean NOT NULL DEFAULT false,
      outcome text NOT NULL,
      action text CHECK (action IN ('credit', 'restore', 'refund')),
      action_done boolean NOT NULL DEFAULT false,
      PRIMARY KEY (run_id, provider_txn_id)
    );
    CREATE INDEX reconciliation_provider_rows_actions_idx ON reconciliation_provider_rows (run_id, provider_txn_id) WHERE action IS NOT NULL AND NOT action_done;
    CREATE INDEX reconciliation_provider_rows_transfer_idx ON reconciliation_provider_rows (run_id, merchant_tx_ref) WHERE merchant_tx_ref IS NOT NULL;

    -- Per account and Africa/Lagos day: the provider's gross and fees against the ledger's credits and fees.
    CREATE TABLE reconciliation_day_totals (
      run_id uuid NOT NULL REFERENCES reconciliation_runs(id),
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      day date NOT NULL,
      provider_count integer NOT NULL,
      provider_gross bigint NOT NULL,
      provider_fee bigint NOT NULL,
      ledger_count integer NOT NULL,
      ledger_gross bigint NOT NULL,
      ledger_fee bigint NOT NULL,
      PRIMARY KEY (run_id, account_id, day)
    );
    CREATE INDEX reconciliation_day_totals_tenant_idx ON reconciliation_day_totals (run_id, tenant_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE reconciliation_day_totals, reconciliation_provider_rows, reconciliation_run_exceptions, reconciliation_exceptions, reconciliation_runs;
    DROP INDEX inbound_events_misdirected_txn_idx, settlements_open_by_updated_idx, inbound_events_found_by_reconciliation_idx;
    ALTER TABLE ledger_entries DROP CONSTRAINT only_reversals_overdraw;
    ALTER TABLE ledger_entries ADD CONSTRAINT only_reversals_overdraw CHECK (direction = 'credit' OR kind = 'reversal' OR balance_after >= 0);
    ALTER TABLE ledger_entries DROP CONSTRAINT reversal_references_original;
    ALTER TABLE ledger_entries ADD CONSTRAINT reversal_references_original CHECK ((kind = 'reversal') = (reverses_entry_id IS NOT NULL));
    ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
    ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('payment', 'settlement', 'reversal'));
  `);
}
