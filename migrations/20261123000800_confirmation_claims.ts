import type { Knex } from 'knex';

/**
 * Batched confirmation and a fair outbox (issue 13, phase B).
 *
 * `confirmation_claims`: one row per provisional payment credit waiting for, or held by, a batch
 * confirmation. The row, not a workflow id, is the claim: `batch_id` names the one open batch that may
 * confirm or reverse the credit (NULL: queued for the next batch). The batch deletes the row in the
 * transaction that settles the credit; a batch that fails or is terminated has its rows released
 * (batch_id back to NULL) by the sweep. `started_at` says the batch's workflow was started: a claim
 * whose start never happened (the claiming process died, Temporal was down) is claimed again by the next
 * batcher pass once it is older than the sweep's grace. The provider's "seen" memory of a payment lives here too, so
 * the money-moving activity trusts nothing the workflow tells it.
 *
 * `workflow_outbox` gains what a fair drainer needs: the tenant, a priority by job kind (settlements
 * before deliveries before legacy per-payment confirmations), and `available_at`/`attempts` so a start
 * being made is leased and a start that keeps failing backs off instead of blocking later rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE confirmation_claims (
      entry_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      account_ref text NOT NULL,
      provider_txn_ref text NOT NULL,
      posted_at timestamptz NOT NULL,
      queued_at timestamptz NOT NULL DEFAULT now(),
      batch_id text,
      claimed_at timestamptz,
      started_at timestamptz,
      lookups int NOT NULL DEFAULT 0,
      first_seen_at timestamptz,
      not_found_answers int NOT NULL DEFAULT 0
    );
    CREATE INDEX confirmation_claims_queued_idx ON confirmation_claims (queued_at) WHERE batch_id IS NULL;
    CREATE INDEX confirmation_claims_batch_idx ON confirmation_claims (batch_id) WHERE batch_id IS NOT NULL;
    CREATE INDEX confirmation_claims_unstarted_idx ON confirmation_claims (claimed_at) WHERE batch_id IS NOT NULL AND started_at IS NULL;

    ALTER TABLE workflow_outbox
      ADD COLUMN tenant_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
      ADD COLUMN priority smallint NOT NULL DEFAULT 1,
      ADD COLUMN attempts int NOT NULL DEFAULT 0,
      ADD COLUMN available_at timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN last_error text;
    UPDATE workflow_outbox
       SET tenant_id = CAST(search_attributes->>'TenantId' AS uuid),
           priority = CASE workflow_type WHEN 'settlementWorkflow' THEN 0 WHEN 'settlementRefundWorkflow' THEN 0 WHEN 'webhookDeliveryWorkflow' THEN 1 ELSE 2 END
     WHERE started_at IS NULL AND search_attributes->>'TenantId' ~ '^[0-9a-f-]{36}$';
    CREATE INDEX workflow_outbox_fair_idx ON workflow_outbox (tenant_id, priority, created_at) WHERE started_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX workflow_outbox_fair_idx;
    ALTER TABLE workflow_outbox DROP COLUMN tenant_id, DROP COLUMN priority, DROP COLUMN attempts, DROP COLUMN available_at, DROP COLUMN last_error;
    DROP TABLE confirmation_claims;
  `);
}
