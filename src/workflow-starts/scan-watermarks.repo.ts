import type { DbOrTrx } from '../db';

/** Where an incremental scan stopped; the next scan starts there (less an overlap). */
export function createScanWatermarksRepo(db: DbOrTrx) {
  return {
    async get(name: string): Promise<Date | null> {
      const row: { scanned_until: Date } | undefined = await db('sweep_watermarks').where({ name }).first('scanned_until');
      return row?.scanned_until ?? null;
    },

    /** Never moves backwards, so two checks racing cannot undo each other's progress. */
    async advance(name: string, scannedUntil: Date): Promise<void> {
      await db('sweep_watermarks')
        .insert({ name, scanned_until: scannedUntil })
        .onConflict('name')
        .merge({ scanned_until: db.raw('greatest(sweep_watermarks.scanned_until, excluded.scanned_until)'), updated_at: db.fn.now() });
    },
  };
}

export type ScanWatermarksRepo = ReturnType<typeof createScanWatermarksRepo>;
