import type { Knex } from 'knex';

/**
 * A confirmed payment whose parts were split may be taken back (a compensation of a credit the provider took
 * back): each moved part is then taken back from the account that received it, in the compensation's
 * transaction, and its split_moves row names the receiver's debit that took it back.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE split_moves ADD COLUMN taken_back_entry_id uuid REFERENCES ledger_entries (id);
    ALTER TABLE split_moves ADD CONSTRAINT split_moves_taken_back_after_moved CHECK (taken_back_entry_id IS NULL OR transfer_id IS NOT NULL);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE split_moves DROP CONSTRAINT split_moves_taken_back_after_moved;
    ALTER TABLE split_moves DROP COLUMN taken_back_entry_id;
  `);
}
