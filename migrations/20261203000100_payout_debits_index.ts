import type { Knex } from 'knex';

/**
 * The payout debits (settlements' and transfers') by time: ledger:verify recounts each customer's payouts of the
 * current Africa/Lagos day from them, and finds every transfer debit's transfer, without reading every entry.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX ledger_entries_payout_debits_idx ON ledger_entries (created_at) WHERE direction = 'debit' AND kind IN ('settlement', 'transfer');
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX ledger_entries_payout_debits_idx;');
}
