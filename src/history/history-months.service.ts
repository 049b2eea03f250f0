import type { Db } from '../db';
import { ConflictError } from '../errors';
import { createLedgerArchiveRepo } from '../ledger/ledger-archive.repo';
import { createHistoryArchiveRepo } from './history-archive.repo';
import { createHistoryMonthsRepo, HISTORY_TABLES, type Month, type MonthPartition } from './history-months.repo';

/**
 * A month's partition waits at most this long for its locks (a long query on the table): the next pass tries again.
 * Short, since the postings that queue behind a waiting ATTACH wait as long.
 */
const LOCK_TIMEOUT = '2s';

/** A detach waits this long for the history tables' locks (a long statement or report on them) before it gives up. */
const DETACH_LOCK_TIMEOUT = '10s';

/** `month` plus `count` months, as a Month. */
function monthsAfter(month: Month, count: number): Month {
  const date = new Date(`${month}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + count);
  return date.toISOString().slice(0, 10);
}

/** A month's partition as detached, and its table's name in the archive's schema. */
export type DetachedMonth = MonthPartition & { archivedAs: string };

/**
 * The history tables' months (see migrations/20261212000100_ledger_history_by_month.ts and
 * migrations/20261212000200_events_and_deliveries_by_month.ts): partition DDL, which moves
 * no money. The worker keeps the months ahead made; an operator archives whole old months.
 */
export function createHistoryMonthsService(deps: { db: Db; refundWatchMs: number }) {
  const { db, refundWatchMs } = deps;

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
     * Archives the months before `before` (YYYY-MM-01), in one transaction: each history table's partitions of those
     * months are detached, each staying in the database as a table of its own (`<table>_yYYYYmMM`) for an operator to
     * dump and drop, and what they leave behind is recorded with them (the ledger's carried-forward totals, the ids of
     * the archived rows others name). The history tables are locked first, in one order: postings wait meanwhile.
     * Refused, detaching nothing, when `before` is later than the current month (a month not over), when a DEFAULT
     * partition still holds rows of those months, or when money or work of those months is still moving (see
     * docs/scaling.md#archived-months).
     */
    async detachBefore(before: Month): Promise<DetachedMonth[]> {
      return db.transaction(async (trx) => {
        const repo = createHistoryMonthsRepo(trx);
        const current = await repo.currentMonth();
        if (before > current)
          throw new ConflictError(`${before.slice(0, 7)} is not over: months before ${current.slice(0, 7)} may be detached`);
        await trx.raw(`SET LOCAL lock_timeout = '${DETACH_LOCK_TIMEOUT}'`);
        await repo.lock(HISTORY_TABLES);
        for (const table of HISTORY_TABLES) {
          const waiting = await repo.rowsBefore(`${table}_default`, before);
          if (waiting > 0) {
            throw new ConflictError(
              `${table}'s DEFAULT partition holds ${waiting} row(s) before ${before.slice(0, 7)}: the worker's history loop moves them into their months first`,
            );
          }
        }
        const moving = [
          ...(await createLedgerArchiveRepo(trx).stillMoving(before, refundWatchMs)),
          ...(await createHistoryArchiveRepo(trx).stillMoving(before)),
        ];
        if (moving.length > 0) {
          throw new ConflictError(
            `months before ${before.slice(0, 7)} hold money or work still moving: ${moving
              .map((still) => `${still.count} ${still.what}`)
              .join(', ')}; nothing detached (see docs/scaling.md#archived-months)`,
          );
        }
        const detached = (await repo.partitions()).filter((partition) => partition.month < before);
        if (detached.length === 0) return [];
        await createLedgerArchiveRepo(trx).carryForward(before);
        await createHistoryArchiveRepo(trx).recordArchivedIds(before);
        const archived: DetachedMonth[] = [];
        for (const partition of detached)
          archived.push({ ...partition, archivedAs: await repo.detach(partition.table, partition.partition) });
        return archived;
      });
    },
  };
}

export type HistoryMonthsService = ReturnType<typeof createHistoryMonthsService>;
