import type { Knex } from 'knex';

/**
 * The settlement reference watch (src/reconciliation/settlement-watch.service.ts): each reference that
 * can no longer pay by our books is looked up again at the provider, with a back-off per reference
 * (`watch_next_at`, after `watch_checks` checks), for SETTLEMENT_FAILED_REFERENCE_WATCH after its
 * failure. The partial indexes find the references still inside that window without reading older ones.
 *
 * Findings the watch raises belong to no reconciliation run: their run columns may be empty.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE settlement_attempts ADD COLUMN watch_next_at timestamptz, ADD COLUMN watch_checks integer NOT NULL DEFAULT 0;
    CREATE INDEX settlement_attempts_over_idx ON settlement_attempts (updated_at) WHERE outcome IN ('failed', 'refunded');
    CREATE INDEX settlements_reversed_idx ON settlements (updated_at) WHERE status IN ('failed', 'refunded');
    ALTER TABLE reconciliation_exceptions ALTER COLUMN first_run_id DROP NOT NULL, ALTER COLUMN last_run_id DROP NOT NULL;
  `);
}

/** Rolling back drops the findings no run ever met (the watch's alone): the earlier schema cannot hold them. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM reconciliation_run_exceptions WHERE exception_id IN (SELECT id FROM reconciliation_exceptions WHERE first_run_id IS NULL OR last_run_id IS NULL);
    DELETE FROM reconciliation_exceptions WHERE first_run_id IS NULL OR last_run_id IS NULL;
    ALTER TABLE reconciliation_exceptions ALTER COLUMN first_run_id SET NOT NULL, ALTER COLUMN last_run_id SET NOT NULL;
    DROP INDEX settlements_reversed_idx;
    DROP INDEX settlement_attempts_over_idx;
    ALTER TABLE settlement_attempts DROP COLUMN watch_checks, DROP COLUMN watch_next_at;
  `);
}
