import type { Knex } from 'knex';

/** Roles are sets of permissions; the approver approves payouts waiting for approval and does nothing else. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE dashboard_users
      DROP CONSTRAINT dashboard_users_role_check,
      ADD CONSTRAINT dashboard_users_role_check CHECK (role IN ('admin', 'operator', 'approver', 'viewer'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE dashboard_users
      DROP CONSTRAINT dashboard_users_role_check,
      ADD CONSTRAINT dashboard_users_role_check CHECK (role IN ('admin', 'operator', 'viewer'))`);
}
