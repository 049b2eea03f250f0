import type { Knex } from 'knex';

/**
 * A tenant's velocity rules: at most `threshold` payouts (a count) or kobo (an amount) per account, per customer or
 * per destination bank account within a rolling window of `window_seconds`; a payout past it is refused with the
 * tenant's message or sent to review (held for approval). The indexes by account and time serve the
 * windows of account and customer rules (a destination rule reads settlements_tenant_destination_idx).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE velocity_rules (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      subject text NOT NULL CHECK (subject IN ('payouts')),
      measure text NOT NULL CHECK (measure IN ('count', 'amount')),
      scope text NOT NULL CHECK (scope IN ('account', 'customer', 'destination')),
      window_seconds integer NOT NULL CHECK (window_seconds BETWEEN 1 AND 2592000),
      threshold bigint NOT NULL CHECK (threshold > 0),
      action text NOT NULL CHECK (action IN ('refuse', 'review')),
      message text CHECK (length(message) BETWEEN 1 AND 200),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT velocity_rules_refusal_has_message CHECK ((action = 'refuse') = (message IS NOT NULL))
    );
    CREATE INDEX velocity_rules_tenant_idx ON velocity_rules (tenant_id, subject, id);
    CREATE INDEX settlements_account_created_idx ON settlements (account_id, created_at);
    CREATE INDEX payout_approvals_account_created_idx ON payout_approvals (account_id, created_at) WHERE status = 'awaiting_approval';`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX payout_approvals_account_created_idx; DROP INDEX settlements_account_created_idx; DROP TABLE velocity_rules');
}
