import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- A tenant's bulk payout: its items become ordinary settlements, one at a time, in order, by its workflow.
    -- status: validating while items wait to be judged and initiated, processing once none waits, then final;
    -- cancelled from a cancel on (items already settling go on).
    CREATE TABLE settlement_batches (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      status text NOT NULL CHECK (status IN ('validating', 'processing', 'completed', 'completed_with_failures', 'cancelled')),
      item_count integer NOT NULL CHECK (item_count BETWEEN 1 AND 5000),
      -- The request's Idempotency-Key (one batch per key) and its body's hash, which a replay must match.
      idempotency_key text NOT NULL,
      request_hash text NOT NULL,
      created_by uuid REFERENCES dashboard_users(id),
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      cancelled_at timestamptz,
      -- Set once every item is final and settlement_batch.completed is recorded.
      completed_at timestamptz,
      UNIQUE (tenant_id, idempotency_key)
    );
    -- A tenant's batches, newest first (ids are UUIDv7: id order is creation order).
    CREATE INDEX settlement_batches_tenant_idx ON settlement_batches (tenant_id, id);
    -- The tenant's batches still open: their settlements in flight count against the tenant's cap.
    CREATE INDEX settlement_batches_open_idx ON settlement_batches (tenant_id) WHERE completed_at IS NULL;

    -- One item in request order. Its status is its settlement's (read through merchant_tx_ref); an item with no
    -- settlement is queued, or failed with failure_reason (refused before submission, or cancelled).
    CREATE TABLE settlement_batch_items (
      batch_id uuid NOT NULL REFERENCES settlement_batches(id),
      position integer NOT NULL,
      reference text NOT NULL,
      account_ref text NOT NULL,
      -- As sent: the item's values are judged when its turn comes (an amount that is none fails the item then).
      amount text NOT NULL,
      bank_code text,
      account_number text,
      beneficiary_id text,
      narration text,
      merchant_tx_ref text UNIQUE,
      failure_reason text,
      PRIMARY KEY (batch_id, position),
      UNIQUE (batch_id, reference),
      CONSTRAINT settlement_batch_items_one_outcome CHECK (merchant_tx_ref IS NULL OR failure_reason IS NULL)
    );
  `);
}

/** Rolling back drops the batches; the settlements their items made stay (ordinary settlements), and so do their keys' claims. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE settlement_batch_items, settlement_batches;
  `);
}
