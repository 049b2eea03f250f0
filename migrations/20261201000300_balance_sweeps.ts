import type { Knex } from 'knex';

/**
 * Balance sweeps: one per account at most, paying what the account may spend (less `keep`) to a saved
 * beneficiary, on a Lagos time of day or when above a threshold. `version` counts changes and
 * `schedule_version` is the change the account's Temporal Schedule was last brought in line with: a
 * row whose two differ (a DELETE leaves the row with `deleted_at` until its Schedule is gone) is picked
 * up by the worker's reconciling loop, so a change made while Temporal is down reaches it later.
 *
 * Every run is recorded once per account and period (the Lagos date of a daily sweep, the check's slot
 * of a threshold sweep): the unique key is what makes a retried or doubled run pay at most once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE balance_sweeps (
      account_id uuid PRIMARY KEY REFERENCES virtual_accounts(id),
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      beneficiary_id uuid NOT NULL REFERENCES beneficiaries(id),
      daily_at text CHECK (daily_at ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
      when_above bigint CHECK (when_above > 0),
      keep bigint NOT NULL DEFAULT 0 CHECK (keep >= 0),
      version integer NOT NULL DEFAULT 1,
      schedule_version integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz,
      CHECK ((daily_at IS NULL) <> (when_above IS NULL))
    );
    CREATE INDEX balance_sweeps_beneficiary_idx ON balance_sweeps (tenant_id, beneficiary_id) WHERE deleted_at IS NULL;
    CREATE INDEX balance_sweeps_unscheduled_idx ON balance_sweeps (updated_at) WHERE version <> schedule_version;

    CREATE TABLE balance_sweep_runs (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      period text NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('settled', 'nothing_to_move', 'paused', 'refused')),
      reason text,
      merchant_tx_ref text,
      amount bigint,
      at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (account_id, period),
      CHECK ((outcome = 'settled') = (merchant_tx_ref IS NOT NULL))
    );
    CREATE INDEX balance_sweep_runs_account_idx ON balance_sweep_runs (account_id, at DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE balance_sweep_runs;
    DROP TABLE balance_sweeps;
  `);
}
