import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- A tenant's own limits for a tier (its partner bank's), replacing the platform defaults for that tier as a whole.
    -- A null limit is "no limit". Limits are in kobo, judged on what lands in (or leaves) the account.
    CREATE TABLE kyc_tier_limits (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      tier smallint NOT NULL CHECK (tier IN (1, 2, 3)),
      single_credit bigint CHECK (single_credit >= 0),
      balance bigint CHECK (balance >= 0),
      daily_debits bigint CHECK (daily_debits >= 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, tier)
    );

    -- An operator's limits for one customer, whatever its tier (replacing the tier's as a whole).
    CREATE TABLE customer_kyc_limits (
      customer_id uuid PRIMARY KEY REFERENCES customers(id),
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      single_credit bigint CHECK (single_credit >= 0),
      balance bigint CHECK (balance >= 0),
      daily_debits bigint CHECK (daily_debits >= 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    -- Money in the ledger balance that a settlement may not spend, and the debits of the account's current
    -- Africa/Lagos day: both moved only by the ledger, under the account's row lock.
    ALTER TABLE virtual_accounts
      ADD COLUMN held_balance bigint NOT NULL DEFAULT 0 CHECK (held_balance >= 0),
      ADD COLUMN debits_day date,
      ADD COLUMN debits_day_total bigint NOT NULL DEFAULT 0 CHECK (debits_day_total >= 0);

    -- The part of a payment credit over a limit, and each later change of it: ledger facts, never rewritten.
    CREATE TABLE ledger_holds (
      entry_id uuid PRIMARY KEY REFERENCES ledger_entries(id),
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      amount bigint NOT NULL CHECK (amount > 0),
      released bigint NOT NULL DEFAULT 0 CHECK (released >= 0),
      tier smallint NOT NULL CHECK (tier IN (1, 2, 3)),
      limit_kind text NOT NULL CHECK (limit_kind IN ('single_credit', 'balance')),
      limit_amount bigint NOT NULL CHECK (limit_amount >= 0),
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT hold_released_within_amount CHECK (released <= amount)
    );
    CREATE INDEX ledger_holds_open_idx ON ledger_holds (tenant_id, created_at) WHERE released < amount;
    CREATE INDEX ledger_holds_account_idx ON ledger_holds (account_id, created_at);

    CREATE TABLE ledger_hold_releases (
      id uuid PRIMARY KEY,
      entry_id uuid NOT NULL REFERENCES ledger_holds(entry_id),
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      amount bigint NOT NULL CHECK (amount > 0),
      reason text NOT NULL CHECK (reason IN ('tier_raised', 'operator', 'credit_reversed')),
      user_id uuid REFERENCES dashboard_users(id),
      note text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX ledger_hold_releases_entry_idx ON ledger_hold_releases (entry_id);

    -- Tier 3 is recorded by an operator with its evidence (never self-service).
    ALTER TABLE customer_audit DROP CONSTRAINT customer_audit_action_check;
    ALTER TABLE customer_audit ADD CONSTRAINT customer_audit_action_check
      CHECK (action IN ('kyc_submitted', 'kyc_approved', 'kyc_rejected', 'kyc_tier3_recorded', 'suspended', 'reactivated'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE customer_audit DROP CONSTRAINT customer_audit_action_check;
    ALTER TABLE customer_audit ADD CONSTRAINT customer_audit_action_check
      CHECK (action IN ('kyc_submitted', 'kyc_approved', 'kyc_rejected', 'suspended', 'reactivated'));
    DROP TABLE ledger_hold_releases;
    DROP TABLE ledger_holds;
    ALTER TABLE virtual_accounts DROP COLUMN held_balance, DROP COLUMN debits_day, DROP COLUMN debits_day_total;
    DROP TABLE customer_kyc_limits;
    DROP TABLE kyc_tier_limits;
  `);
}
