import type { Knex } from 'knex';

/**
 * Settlement spends the ledger balance (SPEC.md), so a provisional credit can be spent and later
 * reversed: the account may then fall below zero. The available balance may go negative too, so its
 * CHECK goes; in its place the entries themselves say who may overdraw (only a reversal), and the
 * account carries a deficit flag that the database keeps in step with its balance.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE virtual_accounts DROP CONSTRAINT available_balance_not_negative;
    ALTER TABLE virtual_accounts ADD COLUMN deficit_since timestamptz;
    ALTER TABLE virtual_accounts ADD CONSTRAINT deficit_flag_matches_balance CHECK ((ledger_balance < 0) = (deficit_since IS NOT NULL));
    CREATE INDEX virtual_accounts_in_deficit_idx ON virtual_accounts (tenant_id, deficit_since) WHERE deficit_since IS NOT NULL;
    ALTER TABLE ledger_entries ADD CONSTRAINT only_reversals_overdraw CHECK (direction = 'credit' OR kind = 'reversal' OR balance_after >= 0);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_entries DROP CONSTRAINT only_reversals_overdraw;
    DROP INDEX virtual_accounts_in_deficit_idx;
    ALTER TABLE virtual_accounts DROP CONSTRAINT deficit_flag_matches_balance;
    ALTER TABLE virtual_accounts DROP COLUMN deficit_since;
    ALTER TABLE virtual_accounts ADD CONSTRAINT available_balance_not_negative CHECK (ledger_balance >= pending_credits);
  `);
}
