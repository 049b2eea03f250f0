import type { Knex } from 'knex';

/**
 * Payouts on a date. A scheduled payout waits in scheduled_payouts with its money reserved (a `scheduled_payout`
 * reservation owned by its id) until its scheduled_for, when its workflow makes it the settlement of the same
 * merchantTxRef (state `started`, the reservation posted by the settlement's debit); until then it may be cancelled
 * (state `cancelled`, the reservation released), and a settlement the debit refuses at its time leaves it `refused`
 * (released too). A scheduled settlement batch keeps its time on the batch (status `scheduled` until then), each item's
 * money reserved under its hold_id as a held batch's is.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE scheduled_payouts (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      merchant_tx_ref text NOT NULL UNIQUE,
      amount bigint NOT NULL CHECK (amount > 0),
      bank_code text NOT NULL,
      account_number text NOT NULL,
      narration text NOT NULL,
      account_name text,
      beneficiary_id uuid,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      scheduled_for timestamptz NOT NULL,
      state text NOT NULL DEFAULT 'scheduled' CHECK (state IN ('scheduled', 'started', 'cancelled', 'refused')),
      refusal text,
      maker_user_id uuid,
      maker_api_key_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      ended_at timestamptz,
      CONSTRAINT scheduled_payouts_ended CHECK ((state = 'scheduled') = (ended_at IS NULL)),
      CONSTRAINT scheduled_payouts_refusal CHECK ((state = 'refused') = (refusal IS NOT NULL))
    );
    -- The tenant's payouts still to start, soonest first (the list of scheduled payouts).
    CREATE INDEX scheduled_payouts_due_idx ON scheduled_payouts (tenant_id, scheduled_for, id) WHERE state = 'scheduled';

    ALTER TABLE settlement_batches DROP CONSTRAINT settlement_batches_status_check;
    ALTER TABLE settlement_batches
      ADD CONSTRAINT settlement_batches_status_check CHECK (status IN (
        'scheduled', 'awaiting_approval', 'validating', 'processing', 'completed', 'completed_with_failures', 'cancelled', 'rejected',
        'expired')),
      ADD COLUMN scheduled_for timestamptz;
    -- The tenant's batches still to start, soonest first.
    CREATE INDEX settlement_batches_scheduled_idx ON settlement_batches (tenant_id, scheduled_for, id) WHERE status = 'scheduled';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX settlement_batches_scheduled_idx;
    ALTER TABLE settlement_batches DROP CONSTRAINT settlement_batches_status_check;
    ALTER TABLE settlement_batches DROP COLUMN scheduled_for;
    ALTER TABLE settlement_batches ADD CONSTRAINT settlement_batches_status_check CHECK (status IN (
      'awaiting_approval', 'validating', 'processing', 'completed', 'completed_with_failures', 'cancelled', 'rejected', 'expired'));
    DROP TABLE scheduled_payouts;
  `);
}
