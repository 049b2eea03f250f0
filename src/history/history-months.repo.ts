import type { DbOrTrx } from '../db';
import { EVENT_HISTORY_TABLES } from '../events/history-tables';
import { LEDGER_HISTORY_TABLES } from '../ledger/history-tables';
import { INBOUND_HISTORY_TABLES } from '../payment-ingest/inbound-events.access';

/** A month as its partitions name it: the first day of an Africa/Lagos month, YYYY-MM-01. */
export type Month = string;

/** A month's partition of a history table, as the catalog holds it. */
export interface MonthPartition {
  table: string;
  partition: string;
  month: Month;
}

/** The history tables partitioned by month of `created_at` (each with a DEFAULT partition, `<table>_default`). */
export const HISTORY_TABLES: readonly string[] = [...LEDGER_HISTORY_TABLES, ...EVENT_HISTORY_TABLES, ...INBOUND_HISTORY_TABLES];

const PARTITION_NAME = /_y(\d{4})m(\d{2})$/;

/** Where detached months go, apart from the service's schema. */
const ARCHIVE_SCHEMA = 'history_archive';

/**
 * The history's partitions by month, made by history_month_partition (migrations/20261212000100_ledger_history_by_month.ts,
 * migrations/20261212000200_events_and_deliveries_by_month.ts).
 */
export function createHistoryMonthsRepo(db: DbOrTrx) {
  return {
    /** The current Africa/Lagos month, by the database's clock. */
    async currentMonth(): Promise<Month> {
      const { rows } = await db.raw(`SELECT to_char(date_trunc('month', now() AT TIME ZONE 'Africa/Lagos'), 'YYYY-MM-DD') AS month`);
      return rows[0].month as Month;
    },

    /** Makes `table`'s partition of `month` unless it exists (moving the month's rows out of the DEFAULT); true when made. */
    async makeMonth(table: string, month: Month): Promise<boolean> {
      const { rows } = await db.raw('SELECT history_month_partition(?, CAST(? AS date)) AS made', [table, month]);
      return rows[0].made as boolean;
    },

    /** The months whose rows wait in `table`'s DEFAULT partition (a tenant copied from a cluster that had their partitions). */
    async monthsInDefault(table: string): Promise<Month[]> {
      const { rows } = await db.raw(
        `SELECT DISTINCT to_char(date_trunc('month', created_at AT TIME ZONE 'Africa/Lagos'), 'YYYY-MM-DD') AS month
           FROM ${table}_default ORDER BY 1`,
      );
      return rows.map((row: { month: Month }) => row.month);
    },

    /** The month partitions attached to the history tables. */
    async partitions(): Promise<MonthPartition[]> {
      const { rows } = await db.raw(
        `SELECT p.relname AS table, c.relname AS partition
           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
          WHERE p.relname = ANY(?) AND p.relnamespace = current_schema()::regnamespace
          ORDER BY c.relname`,
        [[...HISTORY_TABLES]],
      );
      return rows.flatMap((row: { table: string; partition: string }) => {
        const match = PARTITION_NAME.exec(row.partition);
        return match ? [{ table: row.table, partition: row.partition, month: `${match[1]}-${match[2]}-01` }] : [];
      });
    },

    /** How many rows of `table` are older than `before` (the start of a month), in its month partitions and its DEFAULT. */
    async rowsBefore(partition: string, before: Month): Promise<number> {
      const { rows } = await db.raw(
        `SELECT count(*) AS count FROM ${partition} WHERE created_at < CAST(? AS timestamp) AT TIME ZONE 'Africa/Lagos'`,
        [before],
      );
      return Number(rows[0].count);
    },

    /** Locks `tables` (their partitions with them), in the order given, against every read and write. */
    async lock(tables: readonly string[]): Promise<void> {
      await db.raw(`LOCK TABLE ${tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
    },

    /**
     * Detaches a month's partition into the archive's schema (migrations/20261213000200_history_archive_schema.ts): it
     * stays in the database as a table of its own, for an operator to dump and drop. Returns its name there.
     */
    async detach(table: string, partition: string): Promise<string> {
      await db.raw(`ALTER TABLE ${table} DETACH PARTITION ${partition}`);
      await db.raw(`ALTER TABLE ${partition} SET SCHEMA ${ARCHIVE_SCHEMA}`);
      return `${ARCHIVE_SCHEMA}.${partition}`;
    },
  };
}
