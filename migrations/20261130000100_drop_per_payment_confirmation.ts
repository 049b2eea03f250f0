import type { Knex } from 'knex';

/**
 * Payments are confirmed only in batches: what the per-payment confirmation workflow kept goes. A start
 * of it still waiting in the outbox would name a workflow type the worker no longer registers, so its
 * credit, if still provisional, is queued for a batch instead (its window still counts from its posting);
 * the provider's answers kept for that workflow's activities (`confirmation_answers`) and the sweep's scan
 * position for its stopped runs are dropped.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    INSERT INTO confirmation_claims (entry_id, tenant_id, account_ref, provider_txn_ref, posted_at)
    SELECT e.id, e.tenant_id, a.account_ref, e.provider_txn_ref, e.created_at
      FROM workflow_outbox o
      JOIN ledger_entries e ON e.id = CAST(o.args->>'entryId' AS uuid)
      JOIN virtual_accounts a ON a.id = e.account_id
     WHERE o.workflow_type = 'paymentConfirmationWorkflow' AND o.started_at IS NULL
       AND e.kind = 'payment' AND e.direction = 'credit' AND e.status = 'provisional'
    ON CONFLICT (entry_id) DO NOTHING;
    DELETE FROM workflow_outbox WHERE workflow_type = 'paymentConfirmationWorkflow';
    DELETE FROM sweep_watermarks WHERE name = 'confirmation-restarts';
    DROP TABLE confirmation_answers;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE confirmation_answers (
      entry_id uuid PRIMARY KEY REFERENCES ledger_entries(id),
      lookups int NOT NULL DEFAULT 0,
      first_seen_at timestamptz,
      not_found_answers int NOT NULL DEFAULT 0,
      last_not_found_counted_at timestamptz
    );
  `);
}
