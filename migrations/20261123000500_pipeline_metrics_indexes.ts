import type { Knex } from 'knex';

/**
 * What the API's /metrics reads at scrape time, indexed so a scrape reads only the rows it reports:
 * provisional payment credits (confirmations pending), entries whose status moved (confirmation lag and
 * reversals since the last scrape), deliveries still open or dead, deliveries and settlements changed
 * since the last scrape, and settlements still in flight. Each partial index holds only rows in those
 * states, so a confirmed credit or a delivered webhook leaves it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX ledger_entries_provisional_payments_idx ON ledger_entries (created_at) WHERE kind = 'payment' AND status = 'provisional';
    CREATE INDEX ledger_entries_status_changed_idx ON ledger_entries (status_changed_at) WHERE status_changed_at IS NOT NULL;
    CREATE INDEX webhook_deliveries_open_idx ON webhook_deliveries (status) WHERE status IN ('pending', 'retrying', 'dead_letter');
    CREATE INDEX webhook_deliveries_updated_idx ON webhook_deliveries (updated_at);
    CREATE INDEX settlements_open_idx ON settlements (status) WHERE status IN ('pending', 'processing');
    CREATE INDEX settlements_updated_idx ON settlements (updated_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX ledger_entries_provisional_payments_idx, ledger_entries_status_changed_idx, webhook_deliveries_open_idx,
               webhook_deliveries_updated_idx, settlements_open_idx, settlements_updated_idx
  `);
}
