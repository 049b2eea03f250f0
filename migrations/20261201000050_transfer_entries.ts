import type { Knex } from 'knex';

/**
 * A transfer between two of a tenant's accounts is one ledger transaction of two customer entries of kind
 * `transfer`: a debit of one account and a credit of the other, confirmed as they post, with no system
 * posting (the money never leaves the provider's wallet).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
    ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
      CHECK (kind IN ('payment', 'settlement', 'reversal', 'adjustment', 'transfer'));
    -- A transfer posts confirmed: never provisional, never reversed (a mistaken one is answered by another transfer).
    ALTER TABLE ledger_entries ADD CONSTRAINT transfers_post_confirmed CHECK (kind <> 'transfer' OR status = 'confirmed');
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_entries DROP CONSTRAINT transfers_post_confirmed;
    ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
    ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('payment', 'settlement', 'reversal', 'adjustment'));
  `);
}
