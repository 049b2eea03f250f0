import type { Knex } from 'knex';

/**
 * Why a reservation was released is declared by its kind (src/ledger/reservation-kinds.ts, `releaseReasons`), as
 * why it was made is: a new kind declares its own, so no CHECK names them here. ledger:verify refuses a release
 * whose reason its reservation's kind does not declare. An expiry stays a change with no reason.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ledger_reservation_changes DROP CONSTRAINT ledger_reservation_changes_reason_check');
}

/** Back to the closed list; refused while a release has a reason outside it (a kind declared since has none to become). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DO $$
    BEGIN
      IF EXISTS (SELECT 1 FROM ledger_reservation_changes WHERE reason NOT IN ('tier_raised', 'operator', 'credit_reversed')) THEN
        RAISE EXCEPTION 'releases with a reason outside tier_raised, operator and credit_reversed have no place in the closed list';
      END IF;
    END $$;
    ALTER TABLE ledger_reservation_changes
      ADD CONSTRAINT ledger_reservation_changes_reason_check CHECK (reason IN ('tier_raised', 'operator', 'credit_reversed'));
  `);
}
