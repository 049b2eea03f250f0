import type { Knex } from 'knex';

/**
 * Indexes nothing reads cost every posting a write: payment credits are found by provider
 * transaction through the unique partial index, settlements through their own table, and misdirected
 * payments through (tenant_id, category, id).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX ledger_entries_provider_txn_ref_idx;
    DROP INDEX ledger_entries_group_idx;
    DROP INDEX inbound_events_misdirected_idx;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX ledger_entries_provider_txn_ref_idx ON ledger_entries (provider_txn_ref);
    CREATE INDEX ledger_entries_group_idx ON ledger_entries (transaction_group_id);
    CREATE INDEX inbound_events_misdirected_idx ON inbound_events (id) WHERE category = 'misdirected';
  `);
}
