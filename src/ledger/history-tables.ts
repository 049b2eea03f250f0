/**
 * The ledger's tables partitioned by month of `created_at` (see docs/scaling.md#history-by-month): its entries and its
 * system-posting rows, each with a DEFAULT partition `<table>_default`. The history's months are made and detached by
 * src/history/, which names the ledger's tables only through this list.
 */
export const LEDGER_HISTORY_TABLES: readonly string[] = ['ledger_entries', 'ledger_system_posting_rows'];

/**
 * The ledger's history tables whose rows other records name by id (an entry): an archived row's id is kept by
 * src/history/ (see docs/scaling.md#archived-months), which names them only through this list.
 */
export const LEDGER_HISTORY_NAMED_BY_ID: readonly string[] = ['ledger_entries'];
