import type { Knex } from 'knex';

/**
 * What an account may spend, defined once: its ledger balance less its reserved money (held_balance, the sum of
 * its open reservations), less its provisional credits when only confirmed money may be spent. LANGUAGE sql and
 * IMMUTABLE, so the planner inlines it where it is called (the posting statement's gate among them).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION ledger_spendable(ledger_balance bigint, reserved bigint, pending_credits bigint, spend_available boolean)
      RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT ledger_balance - reserved - CASE WHEN spend_available THEN pending_credits ELSE 0 END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION ledger_spendable(bigint, bigint, bigint, boolean)');
}
