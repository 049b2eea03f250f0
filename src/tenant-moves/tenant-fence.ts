import type { Db } from '../db';

/**
 * The fence on the source: the tenant's accounts and settlements marked moved out, after which the database refuses
 * every change to them (see the migration tenant_move_fence), and so every money write of the tenant there; and the
 * tenant's workflow starts still in the outbox parked, so that no drainer starts them here; and the tenant itself
 * marked, so that the cluster's jobs that span tenants pass it by. Marking
 * an account takes its row lock, the lock every posting holds until it commits: the fence commits only once the
 * postings in flight have, and the copy's snapshot, taken after it, holds all of them. Rows are taken in id order,
 * the order postings lock them in, so the fence never deadlocks one.
 */
export function createTenantFence(db: Db) {
  return {
    /** Marks the tenant's rows moved out; rows already marked (a move run again) keep their moment. */
    async raise(tenantId: string): Promise<void> {
      await db.transaction(async (trx) => {
        for (const table of ['virtual_accounts', 'settlements']) {
          await trx.raw(
            `UPDATE ${table} SET moved_out_at = now()
              WHERE id IN (SELECT id FROM ${table} WHERE tenant_id = ? AND moved_out_at IS NULL ORDER BY id FOR NO KEY UPDATE)`,
            [tenantId],
          );
        }
        // The tenant's own mark, by which the cluster's jobs that span tenants leave it alone.
        await trx.raw('UPDATE tenants SET moved_out_at = now() WHERE id = ? AND moved_out_at IS NULL', [tenantId]);
        // Workflow starts the outbox still holds are left to the target, which starts them (see COLUMN_REWRITES).
        await trx.raw(
          `UPDATE workflow_outbox SET available_at = 'infinity' WHERE tenant_id = ? AND started_at IS NULL AND available_at <> 'infinity'`,
          [tenantId],
        );
      });
    },

    /** Whether the tenant is fenced here: it moved (or is moving) to another cluster. */
    async raised(tenantId: string): Promise<boolean> {
      const { rows } = await db.raw<{ rows: unknown[] }>('SELECT 1 FROM tenants WHERE id = ? AND moved_out_at IS NOT NULL', [tenantId]);
      return rows.length > 0;
    },

    /** Clears the mark and frees the parked starts: the tenant writes here again (a move that failed, or rolled back). */
    async lower(tenantId: string): Promise<void> {
      await db.transaction(async (trx) => {
        for (const table of ['virtual_accounts', 'settlements']) {
          await trx.raw(`UPDATE ${table} SET moved_out_at = NULL WHERE tenant_id = ? AND moved_out_at IS NOT NULL`, [tenantId]);
        }
        await trx.raw('UPDATE tenants SET moved_out_at = NULL WHERE id = ?', [tenantId]);
        await trx.raw(
          `UPDATE workflow_outbox SET available_at = now() WHERE tenant_id = ? AND started_at IS NULL AND available_at = 'infinity'`,
          [tenantId],
        );
      });
    },
  };
}
