import type { Knex } from 'knex';

/**
 * The return sweep runs every second in every worker: its read of the payments held to return walks an index
 * of the open amount-mismatch holds alone, oldest first, not every open hold of every tenant. Each claim of a
 * return carries a token of its own, so only the worker holding the latest claim records how the return ended.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX ledger_holds_mismatch_open_idx ON ledger_holds (created_at) WHERE limit_kind = 'amount_mismatch' AND released < amount;
    ALTER TABLE dynamic_account_returns ADD COLUMN claim_token uuid;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE dynamic_account_returns DROP COLUMN claim_token;
    DROP INDEX ledger_holds_mismatch_open_idx;
  `);
}
