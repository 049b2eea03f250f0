import type { Knex } from 'knex';

/**
 * An account may be frozen for debits, credits or both, with the reason it was frozen and when. The freeze lives on
 * the account's row: the posting statements lock that row already, so judging a freeze costs them one more column.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE virtual_accounts
      ADD COLUMN frozen_for text CHECK (frozen_for IN ('debits', 'credits', 'both')),
      ADD COLUMN frozen_reason text,
      ADD COLUMN frozen_at timestamptz,
      ADD CONSTRAINT virtual_accounts_freeze_whole
        CHECK ((frozen_for IS NULL) = (frozen_reason IS NULL) AND (frozen_for IS NULL) = (frozen_at IS NULL))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE virtual_accounts
      DROP CONSTRAINT virtual_accounts_freeze_whole,
      DROP COLUMN frozen_for, DROP COLUMN frozen_reason, DROP COLUMN frozen_at`);
}
