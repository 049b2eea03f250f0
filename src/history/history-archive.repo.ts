import type { DbOrTrx } from '../db';
import { LEDGER_HISTORY_NAMED_BY_ID } from '../ledger/history-tables';

/** The first instant of month `:before` (YYYY-MM-01, a binding), Africa/Lagos: the archive holds what was written before it. */
const BOUNDARY = `CAST(CAST(:before AS date) AS timestamp) AT TIME ZONE 'Africa/Lagos'`;

/** The history tables whose rows others name by id: an archived row's id stays in history_archived_rows. */
const NAMED_BY_ID: readonly string[] = [...LEDGER_HISTORY_NAMED_BY_ID, 'inbound_events', 'tenant_events', 'webhook_deliveries'];

/** Work of the events and payloads still moving in the months before a boundary: what refuses their archive. */
export interface HistoryStillMoving {
  what: string;
  count: number;
}

/**
 * The history's side of archiving its months (see docs/scaling.md#archived-months): the work that refuses it, and the
 * ids of the archived rows that other records name (an entry, a provider payload, a tenant event, a delivery), so that
 * ledger:verify tells a record naming an archived row from one naming a missing row.
 */
export function createHistoryArchiveRepo(db: DbOrTrx) {
  return {
    /**
     * What of the events and payloads written before `before` is not final: a delivery pending or retrying, a tenant
     * event the outbox has not dispatched, a misdirected payment not yet assigned to an account. Each with its count,
     * those with none left out.
     */
    async stillMoving(before: string): Promise<HistoryStillMoving[]> {
      const { rows } = await db.raw(
        `SELECT 'deliveries pending or retrying' AS what, count(*) AS count FROM webhook_deliveries
          WHERE created_at < ${BOUNDARY} AND status IN ('pending', 'retrying')
         UNION ALL
         SELECT 'tenant events not dispatched', count(*) FROM tenant_events WHERE created_at < ${BOUNDARY} AND dispatched_at IS NULL
         UNION ALL
         SELECT 'misdirected payments not assigned', count(*) FROM inbound_events
          WHERE created_at < ${BOUNDARY} AND category = 'misdirected' AND assigned_entry_id IS NULL`,
        { before },
      );
      return (rows as Array<{ what: string; count: string }>)
        .map((row) => ({ what: row.what, count: Number(row.count) }))
        .filter((row) => row.count > 0);
    },

    /** Records the id of every row written before `before` of the tables others name by id. */
    async recordArchivedIds(before: string): Promise<void> {
      for (const table of NAMED_BY_ID) {
        await db.raw(
          `INSERT INTO history_archived_rows (table_name, id, tenant_id, created_at)
           SELECT '${table}', id, tenant_id, created_at FROM ${table} WHERE created_at < ${BOUNDARY}`,
          { before },
        );
      }
    },
  };
}
