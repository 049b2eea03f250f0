import type { Db } from '../db';
import { ConflictError } from '../errors';
import { createHistoryMonthsRepo, HISTORY_TABLES, type Month, type MonthPartition } from './history-months.repo';

/**
 * A month's partition waits at most this long for its locks (a long query on the table): the next pass tries again.
 * Short, since the postings that queue behind a waiting ATTACH wait as long.
 */
const LOCK_TIMEOUT = '2s';

/** `month` plus `count` months, as a Month. */
function monthsAfter(month: Month, count: number): Month {
  const date = new Date(`${month}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + count);
  return date.toISOString().slice(0, 10);
}

/**
 * The history tables' months (see migrations/20261212000100_ledger_history_by_month.ts and
 * migrations/20261212000200_events_and_deliveries_by_month.ts): partition DDL, which moves
 * no money. The worker keeps the months ahead made; an operator detaches whole old months for archive.
 */
export function createHistoryMonthsService(deps: { db: Db }) {
  const { db } = deps;

  return {
    /**
     * Makes every history table's partitions of the current month and `monthsAhead` after it, and of any month whose
     * rows wait in a DEFAULT partition (rows copied by a tenant move from a cluster whose months this one lacks), which
     * move into it. Idempotent: a month that exists is left alone. Each month in a transaction of its own, waiting at
     * most LOCK_TIMEOUT for its locks. Returns the partitions made.
     */
    async ensureMonths(monthsAhead: number): Promise<Array<{ table: string; month: Month }>> {
      const current = await createHistoryMonthsRepo(db).currentMonth();
      const made: Array<{ table: string; month: Month }> = [];
      for (const table of HISTORY_TABLES) {
        const waiting = await createHistoryMonthsRepo(db).monthsInDefault(table);
        const ahead = Array.from({ length: monthsAhead + 1 }, (_, index) => monthsAfter(current, index));
        for (const month of [...new Set([...waiting, ...ahead])].sort()) {
          const wasMade = await db.transaction(async (trx) => {
            await trx.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
            return createHistoryMonthsRepo(trx).makeMonth(table, month);
          });
          if (wasMade) made.push({ table, month });
        }
      }
      return made;
    },

    /**
     * Detaches every history table's partitions of the months before `before` (YYYY-MM), in one transaction: each
     * stays in the database as a table of its own (`<table>_yYYYYmMM`), for an operator to dump and drop. Refused,
     * detaching nothing, when `before` is later than the current month (a month not over), when a DEFAULT partition
     * still holds rows of those months, or when any of those months holds rows (see docs/scaling.md#what-a-detach-may-take).
     */
    async detachBefore(before: Month): Promise<MonthPartition[]> {
      return db.transaction(async (trx) => {
        const repo = createHistoryMonthsRepo(trx);
        const current = await repo.currentMonth();
        if (before > current)
          throw new ConflictError(`${before.slice(0, 7)} is not over: months before ${current.slice(0, 7)} may be detached`);
        for (const table of HISTORY_TABLES) {
          const waiting = await repo.rowsBefore(`${table}_default`, before);
          if (waiting > 0) {
            throw new ConflictError(
              `${table}'s DEFAULT partition holds ${waiting} row(s) before ${before.slice(0, 7)}: the worker's history loop moves them into their months first`,
            );
          }
        }
        const detached = (await repo.partitions()).filter((partition) => partition.month < before);
        for (const partition of detached) {
          const rows = await repo.rowsBefore(partition.partition, before);
          if (rows > 0) {
            throw new ConflictError(
              `${partition.partition} holds ${rows} row(s) still read: history:detach detaches empty months only (see docs/scaling.md#what-a-detach-may-take)`,
            );
          }
        }
        for (const partition of detached) await repo.detach(partition.table, partition.partition);
        return detached;
      });
    },
  };
}

export type HistoryMonthsService = ReturnType<typeof createHistoryMonthsService>;
