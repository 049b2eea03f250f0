import type { Knex } from 'knex';

/**
 * The tenant's own mark of a move away from this cluster, set with its accounts' and settlements' fence: the
 * cluster's background jobs that span tenants (the event dispatcher, the convergence check's restarts) leave a
 * tenant so marked alone, since the cluster the directory now names runs its jobs. No trigger: nothing writes money
 * through the tenants row; the accounts' and settlements' fence refuses the writes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tenants ADD COLUMN moved_out_at timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tenants DROP COLUMN moved_out_at');
}
