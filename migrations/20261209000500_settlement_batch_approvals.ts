import type { Knex } from 'knex';

/**
 * A settlement batch the tenant's approval policy holds: it awaits approval with each item's money reserved (a
 * `batch_approval` reservation owned by the item's hold_id) until a second person approves it (its workflow starts and
 * each item's settlement posts its reservation), rejects it, or lets it expire at approval_expires_at (its
 * reservations released). The items the dry run flagged when it was made are kept with their reason for the approver.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE approval_policies
      ADD COLUMN batch_total_at_or_above bigint CHECK (batch_total_at_or_above > 0),
      ADD COLUMN batch_items_at_or_above integer CHECK (batch_items_at_or_above > 0);

    ALTER TABLE settlement_batches DROP CONSTRAINT settlement_batches_status_check;
    ALTER TABLE settlement_batches
      ADD CONSTRAINT settlement_batches_status_check CHECK (status IN (
        'awaiting_approval', 'validating', 'processing', 'completed', 'completed_with_failures', 'cancelled', 'rejected', 'expired')),
      ADD COLUMN approval_reasons text[],
      ADD COLUMN approval_total bigint,
      ADD COLUMN approval_expires_at timestamptz,
      ADD COLUMN decided_by uuid REFERENCES dashboard_users(id),
      ADD COLUMN decided_at timestamptz,
      ADD COLUMN decision_note text,
      ADD CONSTRAINT settlement_batches_held CHECK ((approval_expires_at IS NULL) = (approval_reasons IS NULL));
    -- The tenant's held batches of one status, newest first.
    CREATE INDEX settlement_batches_held_idx ON settlement_batches (tenant_id, status, id) WHERE approval_expires_at IS NOT NULL;

    ALTER TABLE settlement_batch_items
      ADD COLUMN hold_id uuid UNIQUE,
      ADD COLUMN flagged_reason text;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE settlement_batch_items DROP COLUMN hold_id, DROP COLUMN flagged_reason;
    DROP INDEX settlement_batches_held_idx;
    ALTER TABLE settlement_batches DROP CONSTRAINT settlement_batches_held,
      DROP COLUMN approval_reasons, DROP COLUMN approval_total, DROP COLUMN approval_expires_at,
      DROP COLUMN decided_by, DROP COLUMN decided_at, DROP COLUMN decision_note;
    ALTER TABLE settlement_batches DROP CONSTRAINT settlement_batches_status_check;
    ALTER TABLE settlement_batches ADD CONSTRAINT settlement_batches_status_check
      CHECK (status IN ('validating', 'processing', 'completed', 'completed_with_failures', 'cancelled'));
    ALTER TABLE approval_policies DROP COLUMN batch_total_at_or_above, DROP COLUMN batch_items_at_or_above;
  `);
}
