import type { Db } from '../db';
import { parseLsn, type Lsn } from './lsn';

function lsnOf(text: string): Lsn {
  const lsn = parseLsn(text);
  if (lsn === undefined) throw new Error(`Postgres gave "${text}" as a WAL position`);
  return lsn;
}

/**
 * Each tenant's last write position on the primary (an unlogged table: it is read on the primary only, and
 * writing it costs no WAL). Recorded after the write committed, so the position read then is past its commit.
 */
export function createWritePositionsRepo(primary: Db) {
  return {
    /** Records that the tenant has just written (a commit already made): returns the primary's position now. */
    async record(tenantId: string): Promise<Lsn> {
      const { rows } = await primary.raw<{ rows: Array<{ lsn: string }> }>(
        `INSERT INTO tenant_write_positions (tenant_id, lsn) VALUES (?, pg_current_wal_lsn())
         ON CONFLICT (tenant_id) DO UPDATE SET lsn = greatest(tenant_write_positions.lsn, excluded.lsn)
         RETURNING lsn::text AS lsn`,
        [tenantId],
      );
      return lsnOf(rows[0]!.lsn);
    },

    /** The tenant's last recorded write position, or null when it has none. */
    async of(tenantId: string): Promise<Lsn | null> {
      const row = await primary('tenant_write_positions')
        .where({ tenant_id: tenantId })
        .first<{ lsn: string } | undefined>(primary.raw('lsn::text AS lsn'));
      return row ? lsnOf(row.lsn) : null;
    },
  };
}
