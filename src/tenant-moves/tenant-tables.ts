import type { DbOrTrx } from '../db';
import { LEDGER_TRANSACTION_TABLES } from '../ledger/tenant-copies';

/**
 * The tables that hold no tenant's rows, and why: a move copies none of their rows. Every other table of the schema
 * must be found a tenant's by the catalog (below), or the move refuses to start: a table added later is decided here
 * before any tenant moves.
 */
export const PLATFORM_TABLES: Readonly<Record<string, string>> = {
  knex_migrations: "the schema's version: each cluster runs the same migrations itself",
  knex_migrations_lock: "the migrator's lock, per database",
  fee_tiers: 'the platform fee schedule, the same on every cluster (seeded by the migrations)',
  rate_limits:
    'request counters by key, expiring within seconds to minutes: a tenant starts afresh on its new cluster, as after a quiet minute',
  sweep_watermarks: "how far each of the cluster's background jobs has scanned, over all its tenants",
  inbound_event_digest_keys:
    'the digests of bodies that failed verification, which name no tenant: like their events, they stay with the cluster that received them',
  // The control database is by default the first cluster's database: its tables sit beside the ledger's there.
  tenant_placements: 'the directory of every tenant’s cluster, in the control database; a move switches it, never copies it',
  tenant_ref_prefixes:
    "every tenant's account-reference prefix, held once across the clusters in the control database; it stays with the tenant whatever its cluster",
  knex_migrations_control: "the control database's schema version",
  knex_migrations_control_lock: "the control database's migrator lock",
};

/** One table of a tenant's rows, and how to find them. */
export interface TenantTable {
  name: string;
  /** A SQL condition on the table (alias `t`) selecting the tenant's rows, with `:tenantId` as its binding. */
  filter: string;
  /** Columns to insert (generated columns left out), each as selected from the source row `r`. */
  columns: string[];
  /** What the target writes for a column instead of the source's value (see COLUMN_REWRITES). */
  rewrites: Record<string, string>;
  /** Order of the rows, so that a row's parent in the same table comes first (ids are creation-ordered). */
  orderBy: string;
}

/**
 * Columns the target does not take from the source. A bigserial is the database's own (nothing names a status
 * history row by its id); a transaction id (xid8) belongs to the source's counter, so events recorded there come
 * first on the target, all committed; the move's fence belongs to the source, and so does its parking of the
 * outbox's unstarted rows, which the target's drainer starts at once. A tenant's reconciliation run made as the child
 * of a platform run keeps its parent only where that run is: the platform run is its cluster's, never copied.
 */
const COLUMN_REWRITES: Readonly<Record<string, Record<string, string | null>>> = {
  settlement_status_history: { id: null },
  workflow_outbox: { available_at: `CASE WHEN r.available_at = 'infinity' THEN now() ELSE r.available_at END` },
  tenant_events: { xact_id: `'0'::xid8` },
  tenants: { moved_out_at: 'NULL' },
  virtual_accounts: { moved_out_at: 'NULL' },
  settlements: { moved_out_at: 'NULL' },
  reconciliation_runs: { parent_run_id: '(SELECT p.id FROM reconciliation_runs p WHERE p.id = r.parent_run_id)' },
};

interface CatalogTable {
  name: string;
  has_tenant_id: boolean;
  columns: string[];
}

interface CatalogForeignKey {
  child: string;
  child_column: string;
  parent: string;
  parent_column: string;
}

/** A name as a SQL identifier. */
export const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The tenant's tables in foreign-key order (a parent before its children), read from the catalog: the tenants row
 * itself, every table with a `tenant_id`, and every table that hangs off those by a foreign key without a
 * `tenant_id` of its own (a settlement's attempts, a user's sessions), found transitively. Partitions are read
 * through their parent. Throws when a table is neither found here nor in PLATFORM_TABLES.
 */
export async function tenantTables(db: DbOrTrx): Promise<TenantTable[]> {
  const tables: CatalogTable[] = (
    await db.raw(`
      SELECT c.relname AS name,
             bool_or(a.attname = 'tenant_id') AS has_tenant_id,
             array_agg(a.attname::text ORDER BY a.attnum) FILTER (WHERE a.attgenerated = '') AS columns
        FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       GROUP BY c.relname`)
  ).rows;
  const foreignKeys: CatalogForeignKey[] = (
    await db.raw(`
      SELECT child.relname AS child, ca.attname AS child_column, parent.relname AS parent, pa.attname AS parent_column
        FROM pg_constraint k
        JOIN pg_class child ON child.oid = k.conrelid
        JOIN pg_class parent ON parent.oid = k.confrelid
        JOIN pg_namespace n ON n.oid = child.relnamespace
        JOIN pg_attribute ca ON ca.attrelid = k.conrelid AND ca.attnum = k.conkey[1]
        JOIN pg_attribute pa ON pa.attrelid = k.confrelid AND pa.attnum = k.confkey[1]
       WHERE k.contype = 'f' AND n.nspname = current_schema() AND cardinality(k.conkey) = 1 AND NOT child.relispartition
       ORDER BY k.conname`)
  ).rows;
  const byName = new Map(tables.map((table) => [table.name, table]));

  const filters = new Map<string, string>([['tenants', 't.id = :tenantId']]);
  for (const table of tables)
    if (table.has_tenant_id && !(table.name in PLATFORM_TABLES)) filters.set(table.name, 't.tenant_id = :tenantId');
  // A table without tenant_id is the tenant's when it names a row of a tenant's table: its rows are those naming one.
  for (let grown = true; grown;) {
    grown = false;
    for (const table of tables) {
      if (filters.has(table.name) || table.name in PLATFORM_TABLES) continue;
      const parents = foreignKeys.filter((key) => key.child === table.name && key.parent !== table.name && filters.has(key.parent));
      if (parents.length === 0) continue;
      filters.set(
        table.name,
        parents
          .map(
            (key) =>
              `t.${quoted(key.child_column)} IN (SELECT t.${quoted(key.parent_column)} FROM ${quoted(key.parent)} t WHERE ${filters.get(key.parent)})`,
          )
          .join(' OR '),
      );
      grown = true;
    }
  }
  const undecided = tables.filter((table) => !filters.has(table.name) && !(table.name in PLATFORM_TABLES)).map((table) => table.name);
  if (undecided.length > 0) {
    throw new Error(
      `tables neither a tenant's (no tenant_id, no foreign key to a tenant's table) nor listed as the platform's: ${undecided.join(', ')}`,
    );
  }

  // Parents first: a table comes once every table it names (other than itself) is placed. The tables written a
  // transaction at a time are copied together, so each waits for the parents of all of them.
  const together = (name: string) => (LEDGER_TRANSACTION_TABLES.includes(name) ? LEDGER_TRANSACTION_TABLES : [name]);
  const ordered: string[] = [];
  const pending = new Set(filters.keys());
  while (pending.size > 0) {
    const ready = [...pending]
      .filter((name) =>
        foreignKeys.every((key) => !together(name).includes(key.child) || together(name).includes(key.parent) || !pending.has(key.parent)),
      )
      .sort();
    if (ready.length === 0) throw new Error(`the tenant's tables name each other in a cycle: ${[...pending].join(', ')}`);
    for (const name of ready) {
      ordered.push(name);
      pending.delete(name);
    }
  }

  return ordered.map((name) => {
    const table = byName.get(name)!;
    const rewrites = COLUMN_REWRITES[name] ?? {};
    const columns = table.columns.filter((column) => rewrites[column] !== null);
    const orderBy = table.columns.includes('created_at') ? 't.created_at, t.ctid' : 't.ctid';
    return {
      name,
      filter: filters.get(name)!,
      columns,
      rewrites: Object.fromEntries(Object.entries(rewrites).filter((entry): entry is [string, string] => entry[1] !== null)),
      orderBy,
    };
  });
}
