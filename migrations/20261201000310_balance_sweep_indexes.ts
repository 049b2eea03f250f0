import type { Knex } from 'knex';

/**
 * The worker's pass over sweeps whose Schedule has not followed their last change goes round them in
 * account id order (a sweep that keeps failing holds no other back), so their index is by account id.
 * Balance sweep runs that moved nothing are deleted after RETENTION_BALANCE_SWEEP_RUNS, oldest id
 * first, while settled runs stay: indexed apart, each retention batch finds them without reading past
 * the settled runs before them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX balance_sweeps_unscheduled_idx;
    CREATE INDEX balance_sweeps_unscheduled_idx ON balance_sweeps (account_id) WHERE version <> schedule_version;
    CREATE INDEX balance_sweep_runs_unsettled_idx ON balance_sweep_runs (id) WHERE outcome <> 'settled';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX balance_sweep_runs_unsettled_idx;
    DROP INDEX balance_sweeps_unscheduled_idx;
    CREATE INDEX balance_sweeps_unscheduled_idx ON balance_sweeps (updated_at) WHERE version <> schedule_version;
  `);
}
