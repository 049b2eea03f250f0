import { isUniqueViolation, type DbOrTrx } from '../db';

export interface PlacementRow {
  cluster: string;
  movingSince: Date | null;
}

/** The control database's `tenant_placements`: one row per placed tenant. */
export function createTenantPlacementsRepo(db: DbOrTrx) {
  return {
    async find(tenantId: string): Promise<PlacementRow | undefined> {
      const row = (await db('tenant_placements').where({ tenant_id: tenantId }).first('cluster', 'moving_since')) as
        { cluster: string; moving_since: Date | null } | undefined;
      return row ? { cluster: row.cluster, movingSince: row.moving_since } : undefined;
    },

    /** Places the tenant on `cluster`, unless a move holds it. */
    async place(tenantId: string, cluster: string): Promise<void> {
      await db.raw(
        `INSERT INTO tenant_placements (tenant_id, cluster) VALUES (?, ?)
         ON CONFLICT (tenant_id) DO UPDATE SET cluster = excluded.cluster, updated_at = now()
         WHERE tenant_placements.moving_since IS NULL`,
        [tenantId, cluster],
      );
    },

    /** Marks the tenant moving, on the cluster it lives on now (`cluster`, for a tenant with no row yet). */
    async markMoving(tenantId: string, cluster: string): Promise<void> {
      await db.raw(
        `INSERT INTO tenant_placements (tenant_id, cluster, moving_since) VALUES (?, ?, now())
         ON CONFLICT (tenant_id) DO UPDATE SET moving_since = now(), updated_at = now()`,
        [tenantId, cluster],
      );
    },

    /** The tenant lives on `cluster`, moving no more. */
    async settle(tenantId: string, cluster: string): Promise<void> {
      await db.raw(
        `INSERT INTO tenant_placements (tenant_id, cluster) VALUES (?, ?)
         ON CONFLICT (tenant_id) DO UPDATE SET cluster = excluded.cluster, moving_since = NULL, updated_at = now()`,
        [tenantId, cluster],
      );
    },

    /**
     * Holds `refPrefix` for the tenant (replacing the one it held, drawn for an attempt that failed); false when
     * another tenant holds it.
     */
    async reserveRefPrefix(tenantId: string, refPrefix: string): Promise<boolean> {
      try {
        await db.raw(
          `INSERT INTO tenant_ref_prefixes (tenant_id, ref_prefix) VALUES (?, ?)
           ON CONFLICT (tenant_id) DO UPDATE SET ref_prefix = excluded.ref_prefix, reserved_at = now()`,
          [tenantId, refPrefix],
        );
        return true;
      } catch (error) {
        if (isUniqueViolation(error, 'tenant_ref_prefixes_ref_prefix_key')) return false;
        throw error;
      }
    },

    /** Tells every process holding placements in memory (PLACEMENTS_CHANGED_CHANNEL), when the transaction commits. */
    async notifyChanged(channel: string, tenantId: string): Promise<void> {
      await db.raw('SELECT pg_notify(?, ?)', [channel, tenantId]);
    },
  };
}

export type TenantPlacementsRepo = ReturnType<typeof createTenantPlacementsRepo>;
