import type { Trx } from '../db';
import { LEDGER_TRANSACTION_TABLES } from '../ledger/tenant-copies';
import { quoted, type TenantTable } from './tenant-tables';

/** Rows read from the source per round trip, and written to the target per statement. */
const BATCH_ROWS = 2000;
/** The ledger's transactions per batch (each whole in one statement). */
const BATCH_TRANSACTIONS = 500;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A table's filter with the tenant's id in place of its binding (a cursor's query takes no parameters). */
export function tenantFilter(table: TenantTable, tenantId: string): string {
  if (!UUID_RE.test(tenantId)) throw new Error(`not a tenant id: ${tenantId}`);
  return table.filter.replaceAll(':tenantId', `'${tenantId}'::uuid`);
}

/** The source's rows of a query, as JSON texts, a batch at a time, through a cursor of the source's snapshot. */
async function* batchesOf(source: Trx, query: string, batchRows: number): AsyncGenerator<string[]> {
  await source.raw(`DECLARE tenant_move_rows NO SCROLL CURSOR FOR ${query}`);
  try {
    for (;;) {
      const rows: Array<{ row: string }> = (await source.raw(`FETCH ${batchRows} FROM tenant_move_rows`)).rows;
      if (rows.length === 0) return;
      yield rows.map((row) => row.row);
    }
  } finally {
    await source.raw('CLOSE tenant_move_rows');
  }
}

/** An INSERT of the table's rows given as a JSON array (the binding), each column as the source had it or rewritten. */
function insertFromJson(table: TenantTable): string {
  const values = table.columns.map((column) => table.rewrites[column] ?? `r.${quoted(column)}`);
  return `INSERT INTO ${quoted(table.name)} (${table.columns.map(quoted).join(', ')})
          SELECT ${values.join(', ')} FROM json_populate_recordset(NULL::${quoted(table.name)}, CAST(? AS json)) r`;
}

const jsonArray = (rows: string[]) => `[${rows.join(',')}]`;

/**
 * Copies tables whose rows are written a whole transaction per statement (see LEDGER_TRANSACTION_TABLES): a batch of
 * the tenant's transactions at a time, oldest first, every table's rows of the batch in one statement. A reversal's
 * transaction is younger than its original's, so the row it names is already there.
 */
async function copyTransactions(source: Trx, target: Trx, tenantId: string, tables: TenantTable[]): Promise<Record<string, number>> {
  const copied: Record<string, number> = Object.fromEntries(tables.map((table) => [table.name, 0]));
  const transactions = `SELECT p.transaction_id::text AS row FROM (
      ${tables.map((table) => `SELECT transaction_id, created_at FROM ${quoted(table.name)} t WHERE ${tenantFilter(table, tenantId)}`).join('\n      UNION ALL ')}) p
    GROUP BY p.transaction_id ORDER BY min(p.created_at), p.transaction_id`;
  const rowsOf = async (table: TenantTable, ids: string[]): Promise<string> =>
    (
      await source.raw(
        `SELECT coalesce(json_agg(t ORDER BY t.created_at, t.ctid), '[]')::text AS agg FROM ${quoted(table.name)} t
          WHERE ${tenantFilter(table, tenantId)} AND t.transaction_id = ANY(CAST(? AS uuid[]))`,
        [ids],
      )
    ).rows[0].agg;
  for await (const ids of batchesOf(source, transactions, BATCH_TRANSACTIONS)) {
    const rows: string[] = [];
    for (const table of tables) rows.push(await rowsOf(table, ids));
    const written = await target.raw(
      `WITH ${tables.map((table, i) => `written_${i} AS (${insertFromJson(table)} RETURNING 1)`).join(', ')}
       SELECT ${tables.map((_, i) => `(SELECT count(*) FROM written_${i})::int AS n${i}`).join(', ')}`,
      rows,
    );
    tables.forEach((table, i) => (copied[table.name]! += written.rows[0][`n${i}`] as number));
  }
  return copied;
}

/**
 * Rows that the target's own triggers wrote while the copy inserted their parents, and that the copy brings from
 * the source instead: a settlement's insert records its status in its history, which the source already holds.
 */
async function clearTriggerWrites(target: Trx, table: TenantTable, tenantId: string): Promise<void> {
  if (table.name === 'settlement_status_history') {
    await target.raw(`DELETE FROM settlement_status_history t WHERE ${tenantFilter(table, tenantId)}`);
  }
}

/**
 * Copies every row of the tenant from `source` (a transaction whose snapshot is the copy's: REPEATABLE READ) into
 * `target` (one transaction: the caller commits it or rolls it all back), table by table in `tables`' order.
 * `onTableCopied` hears each table's count as it is done. Returns the rows copied per table.
 */
export async function copyTenantRows(
  source: Trx,
  target: Trx,
  tenantId: string,
  tables: TenantTable[],
  onTableCopied: (table: string, rows: number) => Promise<void>,
): Promise<Record<string, number>> {
  const copied: Record<string, number> = {};
  for (const table of tables) {
    if (table.name in copied) continue;
    if (LEDGER_TRANSACTION_TABLES.includes(table.name)) {
      // All of them at the first one's place: the order placed them together, after every table any of them names.
      const together = LEDGER_TRANSACTION_TABLES.map((name) => tables.find((other) => other.name === name)!);
      for (const [name, rows] of Object.entries(await copyTransactions(source, target, tenantId, together))) {
        copied[name] = rows;
        await onTableCopied(name, rows);
      }
      continue;
    }
    await clearTriggerWrites(target, table, tenantId);
    let rows = 0;
    const query = `SELECT row_to_json(t)::text AS row FROM ${quoted(table.name)} t WHERE ${tenantFilter(table, tenantId)} ORDER BY ${table.orderBy}`;
    for await (const batch of batchesOf(source, query, BATCH_ROWS)) {
      await target.raw(insertFromJson(table), [jsonArray(batch)]);
      rows += batch.length;
    }
    copied[table.name] = rows;
    await onTableCopied(table.name, rows);
  }
  return copied;
}
