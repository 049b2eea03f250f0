import type { Knex } from 'knex';

/**
 * Dynamic accounts: an account may stop accepting at a time (`expires_at`) and judge each payment's gross
 * amount against its expected amount (`amount_policy`), crediting a mismatch and flagging it or returning it
 * to its payer (`on_mismatch`). Both columns are set together, only on dynamic accounts.
 *
 * `ledger_payment_variances` is the ledger's judgement of a payment credit to a dynamic account, written in
 * the statement that posts the credit, under the account's lock. A payment to be returned is held in full
 * (`ledger_holds.limit_kind` 'amount_mismatch'). `dynamic_account_returns` records each automatic return
 * of such a hold: under way, paid into a settlement, or refused (the money stays held for an operator).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE virtual_accounts
      ADD COLUMN expires_at timestamptz,
      ADD COLUMN amount_policy text CHECK (amount_policy IN ('exact', 'at_least', 'at_most', 'any')),
      ADD COLUMN on_mismatch text CHECK (on_mismatch IN ('credit_and_flag', 'return')),
      ADD CONSTRAINT virtual_accounts_dynamic_check CHECK ((amount_policy IS NULL) = (on_mismatch IS NULL)),
      ADD CONSTRAINT virtual_accounts_policy_amount_check CHECK (amount_policy IN ('any') OR amount_policy IS NULL OR expected_amount IS NOT NULL);
    CREATE INDEX virtual_accounts_due_idx ON virtual_accounts (expires_at) WHERE status = 'active' AND expires_at IS NOT NULL;

    CREATE TABLE ledger_payment_variances (
      entry_id uuid PRIMARY KEY REFERENCES ledger_entries (id),
      tenant_id uuid NOT NULL REFERENCES tenants (id),
      account_id uuid NOT NULL REFERENCES virtual_accounts (id),
      expected_amount bigint CHECK (expected_amount > 0),
      amount_received bigint NOT NULL CHECK (amount_received > 0),
      variance text NOT NULL CHECK (variance IN ('exact', 'under', 'over', 'after_expiry')),
      action text NOT NULL CHECK (action IN ('none', 'flagged', 'return')),
      closes_account boolean NOT NULL
    );

    ALTER TABLE ledger_holds DROP CONSTRAINT ledger_holds_limit_kind_check;
    ALTER TABLE ledger_holds ADD CONSTRAINT ledger_holds_limit_kind_check
      CHECK (limit_kind IN ('single_credit', 'balance', 'amount_mismatch'));

    CREATE TABLE dynamic_account_returns (
      entry_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants (id),
      account_id uuid NOT NULL REFERENCES virtual_accounts (id),
      status text NOT NULL CHECK (status IN ('returning', 'returned', 'refused')),
      reason text,
      merchant_tx_ref text,
      attempted_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'returned') = (merchant_tx_ref IS NOT NULL)),
      CHECK ((status = 'refused') = (reason IS NOT NULL))
    );
  `);
}

/** Rolling back keeps holds recorded for mismatches (ledger facts); only new ones are refused. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE dynamic_account_returns;
    ALTER TABLE ledger_holds DROP CONSTRAINT ledger_holds_limit_kind_check;
    ALTER TABLE ledger_holds ADD CONSTRAINT ledger_holds_limit_kind_check
      CHECK (limit_kind IN ('single_credit', 'balance')) NOT VALID;
    DROP TABLE ledger_payment_variances;
    DROP INDEX virtual_accounts_due_idx;
    ALTER TABLE virtual_accounts
      DROP CONSTRAINT virtual_accounts_policy_amount_check,
      DROP CONSTRAINT virtual_accounts_dynamic_check,
      DROP COLUMN on_mismatch,
      DROP COLUMN amount_policy,
      DROP COLUMN expires_at;
  `);
}
