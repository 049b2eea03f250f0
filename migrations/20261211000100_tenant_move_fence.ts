import type { Knex } from 'knex';

/**
 * A tenant moved to another cluster leaves its rows here, read-only, for a rollback window: `moved_out_at` on its
 * accounts and settlements marks them, and any later change to such a row is refused. Every money write takes one
 * of these rows (a posting, a confirmation, a reversal or a hold updates its accounts; a settlement's payout or
 * failure updates the settlement), so a late activity of a workflow that ran here before the move fails instead of
 * writing money the directory now serves from elsewhere. The trigger's WHEN is evaluated on the row without calling
 * the function, so an unfenced row (every row of the hot path) pays one null test. Clearing `moved_out_at` (a move
 * that failed its verification) is allowed: only a change that keeps the mark is refused.
 */
const FENCED_TABLES = ['virtual_accounts', 'settlements'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION tenant_moved_out_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% row % of tenant % is read-only here: the tenant moved to another cluster at %',
        TG_TABLE_NAME, OLD.id, OLD.tenant_id, OLD.moved_out_at
        USING ERRCODE = 'object_not_in_prerequisite_state';
    END;
    $$;
  `);
  for (const table of FENCED_TABLES) {
    await knex.raw(`
      ALTER TABLE ${table} ADD COLUMN moved_out_at timestamptz;
      CREATE TRIGGER ${table}_moved_out BEFORE UPDATE ON ${table}
        FOR EACH ROW WHEN (OLD.moved_out_at IS NOT NULL AND NEW.moved_out_at IS NOT NULL)
        EXECUTE FUNCTION tenant_moved_out_refuse();
    `);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of FENCED_TABLES) {
    await knex.raw(`
      DROP TRIGGER ${table}_moved_out ON ${table};
      ALTER TABLE ${table} DROP COLUMN moved_out_at;
    `);
  }
  await knex.raw('DROP FUNCTION tenant_moved_out_refuse()');
}
