import type { Knex } from 'knex';

/**
 * An inbound event and a dynamic account's payment variance name the entry the same ingest statement writes, and
 * each foreign key's check probed that entry and share-locked it (a row lock written to the WAL, the entry's page
 * dirtied again) once per payment: the inbound event's at commit, being deferred. Entries are append-only (no
 * DELETE, no TRUNCATE, no change of id), so the keys protected nothing after the insert; ledger:verify names any
 * inbound event or variance whose entry does not exist, as it does for the history's tenants and accounts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_entry_id_fkey;
    ALTER TABLE ledger_payment_variances DROP CONSTRAINT ledger_payment_variances_entry_id_fkey;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_entry_id_fkey FOREIGN KEY (entry_id) REFERENCES ledger_entries(id)
      DEFERRABLE INITIALLY DEFERRED;
    ALTER TABLE ledger_payment_variances ADD CONSTRAINT ledger_payment_variances_entry_id_fkey FOREIGN KEY (entry_id) REFERENCES ledger_entries(id);
  `);
}
