/**
 * The ledger's tables partitioned by month of `created_at` (see docs/scaling.md#history-by-month): its entries and its
 * system-posting rows, each with a DEFAULT partition `<table>_default`. The history's months are made and detached by
 * src/history/, which names the ledger's tables only through this list.
 */
export const LEDGER_HISTORY_TABLES: readonly string[] = ['ledger_entries', 'ledger_system_posting_rows'];
