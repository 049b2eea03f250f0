import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_hold_releases DROP CONSTRAINT ledger_hold_releases_reason_check;
    ALTER TABLE ledger_hold_releases ADD CONSTRAINT ledger_hold_releases_reason_check
      CHECK (reason IN ('tier_raised', 'operator', 'credit_reversed', 'returned'));

    -- A held credit paid back to its payer: the release (reason 'returned') and the settlement debit that pays
    -- it, posted in one transaction. Once per hold. The debit is posted after this row in that transaction,
    -- hence the deferred reference.
    CREATE TABLE ledger_hold_returns (
      entry_id uuid PRIMARY KEY REFERENCES ledger_holds(entry_id),
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      debit_entry_id uuid NOT NULL UNIQUE REFERENCES ledger_entries(id) DEFERRABLE INITIALLY DEFERRED,
      amount bigint NOT NULL CHECK (amount > 0),
      user_id uuid REFERENCES dashboard_users(id),
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
  `);
}

/** Rolling back keeps the releases already recorded as returns (ledger facts); only new ones are refused. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE ledger_hold_returns;
    ALTER TABLE ledger_hold_releases DROP CONSTRAINT ledger_hold_releases_reason_check;
    ALTER TABLE ledger_hold_releases ADD CONSTRAINT ledger_hold_releases_reason_check
      CHECK (reason IN ('tier_raised', 'operator', 'credit_reversed')) NOT VALID;
  `);
}
