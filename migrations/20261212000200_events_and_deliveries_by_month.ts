import type { Knex } from 'knex';

/**
 * The rest of the append-only history partitioned by month of `created_at`, as 20261212000100 partitioned the ledger's:
 * the tenants' events (tenant_events), their outbound deliveries (webhook_deliveries) and each delivery's attempts
 * (webhook_attempts), and the provider's payloads (inbound_events). Africa/Lagos months made by
 * history_month_partition, a DEFAULT partition each; the worker's history loop makes the months ahead and
 * `history:detach` detaches old ones.
 *
 * - inbound_events gains `created_at`, the time its row was written (its received_at, which every writer sets to the
 *   statement's now()). Its two unique rules move to unpartitioned key tables written in the statement that records
 *   the event, since a partitioned unique index holds within a month only: one verified event per provider request id
 *   (inbound_event_request_keys: a provider's retry is a duplicate whatever the month) and one row per unverified body
 *   (inbound_event_digest_keys: a repeat counts on the first's row).
 * - webhook_attempts gains its delivery's `tenant_id` and `created_at`: an attempt lives in its delivery's month, so
 *   (delivery_id, attempt_no, created_at) is unique across months as (delivery_id, attempt_no) was, and a tenant's
 *   attempts are found by its id (a move copies them).
 * - The foreign keys that name these tables (a delivery's attempts, its replay's original, its inbound or tenant event)
 *   cannot name a partitioned table's id alone: they are dropped, and ledger:verify's orphan check names any row
 *   whose parent is missing. Their own keys to unpartitioned tables (an assignment's account and user, an endpoint)
 *   stay.
 *
 * One transaction per table (the migration itself runs outside one), each copying its table whole under an exclusive
 * lock and building its indexes again. A table already partitioned is left alone, so a run that failed half-way
 * completes when run again.
 */
export const config = { transaction: false };

const LAGOS_MONTH = (timestamp: string) => `date_trunc('month', ${timestamp} AT TIME ZONE 'Africa/Lagos')::date`;

/** How many months ahead of the current one the migration makes (the worker's loop keeps HISTORY_MONTHS_AHEAD). */
const MONTHS_AHEAD = 3;

interface HistoryTable {
  name: string;
  /** Tables locked with it: those whose foreign keys naming it are dropped (ACCESS EXCLUSIVE) and those its keys name. */
  locks: { exclusive: string[]; referenced: string[] };
  /** The foreign keys naming the table, dropped (table, constraint). */
  droppedReferences: Array<[string, string]>;
  /** Columns the partitioned table adds to the unpartitioned one's, as CREATE TABLE column definitions. */
  addedColumns: string[];
  /** What the copy writes into the added columns, from the unpartitioned row `u` (and `joins`). */
  addedValues: string[];
  joins: string;
  /** The oldest row's created_at (an expression over `u` and `joins`), for the first month made. */
  oldest: string;
  /** Written before the copy: key tables filled from the unpartitioned rows (`<name>_unpartitioned`). */
  beforeCopy?: string;
  /** The partitioned table's indexes and constraints, made after the copy. */
  after: string;
}

const TABLES: HistoryTable[] = [
  {
    name: 'inbound_events',
    locks: { exclusive: ['inbound_events', 'webhook_deliveries'], referenced: ['virtual_accounts', 'dashboard_users'] },
    droppedReferences: [['webhook_deliveries', 'webhook_deliveries_inbound_event_id_fkey']],
    addedColumns: ['created_at timestamptz NOT NULL DEFAULT now()'],
    addedValues: ['u.received_at'],
    joins: '',
    oldest: 'min(u.received_at)',
    beforeCopy: `
      CREATE TABLE inbound_event_request_keys (
        request_id text PRIMARY KEY,
        tenant_id uuid,
        event_id uuid NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE FUNCTION inbound_event_request_keys_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP;
      END;
      $$;
      CREATE TRIGGER inbound_event_request_keys_append_only BEFORE DELETE OR UPDATE ON inbound_event_request_keys
        FOR EACH ROW EXECUTE FUNCTION inbound_event_request_keys_append_only();
      CREATE TRIGGER inbound_event_request_keys_append_only_truncate BEFORE TRUNCATE ON inbound_event_request_keys
        FOR EACH STATEMENT EXECUTE FUNCTION inbound_event_request_keys_append_only();
      CREATE TABLE inbound_event_digest_keys (
        raw_sha256 text PRIMARY KEY,
        event_id uuid NOT NULL,
        created_at timestamptz NOT NULL
      );
      INSERT INTO inbound_event_request_keys (request_id, tenant_id, event_id, created_at)
        SELECT request_id, tenant_id, id, received_at FROM inbound_events_unpartitioned WHERE signature_valid AND request_id IS NOT NULL;
      INSERT INTO inbound_event_digest_keys (raw_sha256, event_id, created_at)
        SELECT raw_sha256, id, received_at FROM inbound_events_unpartitioned WHERE NOT signature_valid AND raw_sha256 IS NOT NULL;`,
    after: `
      ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_pkey PRIMARY KEY (id, created_at);
      ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_assigned_account_id_fkey FOREIGN KEY (assigned_account_id) REFERENCES virtual_accounts (id);
      ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_assigned_by_fkey FOREIGN KEY (assigned_by) REFERENCES dashboard_users (id);
      CREATE INDEX inbound_events_assigned_entry_idx ON inbound_events (assigned_entry_id) WHERE assigned_entry_id IS NOT NULL;
      CREATE INDEX inbound_events_found_by_reconciliation_idx ON inbound_events (transaction_id) WHERE flags @> ARRAY['found_by_reconciliation'];
      CREATE INDEX inbound_events_misdirected_txn_idx ON inbound_events (transaction_id) WHERE category = 'misdirected';
      CREATE INDEX inbound_events_payload_kept_idx ON inbound_events (id) WHERE signature_valid AND (payload IS NOT NULL OR raw_body IS NOT NULL);
      CREATE INDEX inbound_events_tenant_category_idx ON inbound_events (tenant_id, category, id);
      CREATE INDEX inbound_events_unverified_idx ON inbound_events (id) WHERE NOT signature_valid;`,
  },
  {
    name: 'tenant_events',
    locks: { exclusive: ['tenant_events', 'webhook_deliveries'], referenced: [] },
    droppedReferences: [['webhook_deliveries', 'webhook_deliveries_tenant_event_id_fkey']],
    addedColumns: [],
    addedValues: [],
    joins: '',
    oldest: 'min(u.created_at)',
    after: `
      ALTER TABLE tenant_events ADD CONSTRAINT tenant_events_pkey PRIMARY KEY (id, created_at);
      CREATE INDEX tenant_events_subject_idx ON tenant_events (tenant_id, subject, sequence);
      CREATE INDEX tenant_events_tenant_time_idx ON tenant_events (tenant_id, created_at, id);
      CREATE INDEX tenant_events_tenant_xact_idx ON tenant_events (tenant_id, xact_id, id);
      CREATE INDEX tenant_events_undispatched_idx ON tenant_events (created_at) WHERE dispatched_at IS NULL;`,
  },
  {
    name: 'webhook_deliveries',
    locks: { exclusive: ['webhook_deliveries', 'webhook_attempts'], referenced: ['webhook_endpoints'] },
    droppedReferences: [
      ['webhook_deliveries', 'webhook_deliveries_replay_of_fkey'],
      ['webhook_attempts', 'webhook_attempts_delivery_id_fkey'],
    ],
    addedColumns: [],
    addedValues: [],
    joins: '',
    oldest: 'min(u.created_at)',
    after: `
      ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id, created_at);
      ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id);
      CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id) WHERE endpoint_id IS NOT NULL;
      CREATE INDEX webhook_deliveries_open_idx ON webhook_deliveries (status) WHERE status IN ('pending', 'retrying', 'dead_letter');
      CREATE INDEX webhook_deliveries_replay_of_idx ON webhook_deliveries (replay_of) WHERE replay_of IS NOT NULL;
      CREATE INDEX webhook_deliveries_tenant_idx ON webhook_deliveries (tenant_id, id);
      CREATE INDEX webhook_deliveries_tenant_status_idx ON webhook_deliveries (tenant_id, status, id);
      CREATE INDEX webhook_deliveries_updated_idx ON webhook_deliveries (updated_at);`,
  },
  {
    name: 'webhook_attempts',
    locks: { exclusive: ['webhook_attempts', 'webhook_deliveries'], referenced: [] },
    droppedReferences: [],
    // An attempt carries its delivery's tenant and month (see the comment at the top).
    addedColumns: ['tenant_id uuid NOT NULL', 'created_at timestamptz NOT NULL'],
    addedValues: ['d.tenant_id', 'd.created_at'],
    joins: 'JOIN webhook_deliveries d ON d.id = u.delivery_id',
    oldest: 'min(d.created_at)',
    after: `
      ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (delivery_id, attempt_no, created_at);`,
  },
];

async function isPartitioned(knex: Knex, table: string): Promise<boolean> {
  const { rows } = await knex.raw(`SELECT relkind = 'p' AS partitioned FROM pg_class WHERE oid = to_regclass(?)`, [table]);
  return rows[0]?.partitioned === true;
}

async function columnsOf(knex: Knex, table: string): Promise<string[]> {
  const { rows } = await knex.raw(
    `SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(?) AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    [table],
  );
  return rows.map((row: { attname: string }) => row.attname);
}

/** Partitions one table in a transaction of its own (see the comment at the top). */
async function partition(knex: Knex, table: HistoryTable): Promise<void> {
  await knex.transaction(async (trx) => {
    if (await isPartitioned(trx, table.name)) return;
    // The keys' tables first, in the weaker mode, then the tables rewritten: every lock taken before anything changes.
    if (table.locks.referenced.length > 0) await trx.raw(`LOCK TABLE ${table.locks.referenced.join(', ')} IN SHARE ROW EXCLUSIVE MODE`);
    await trx.raw(`LOCK TABLE ${table.locks.exclusive.join(', ')} IN ACCESS EXCLUSIVE MODE`);
    for (const [child, constraint] of table.droppedReferences) await trx.raw(`ALTER TABLE ${child} DROP CONSTRAINT ${constraint}`);
    const unpartitioned = `${table.name}_unpartitioned`;
    await trx.raw(`ALTER TABLE ${table.name} RENAME TO ${unpartitioned}`);
    if (table.beforeCopy) await trx.raw(table.beforeCopy);
    const copied = await columnsOf(trx, unpartitioned);
    await trx.raw(
      `CREATE TABLE ${table.name} (LIKE ${unpartitioned} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE${table.addedColumns
        .map((column) => `, ${column}`)
        .join('')}) PARTITION BY RANGE (created_at)`,
    );
    await trx.raw(`CREATE TABLE ${table.name}_default PARTITION OF ${table.name} DEFAULT`);
    await trx.raw(
      `SELECT history_month_partition(?, month::date)
         FROM generate_series(least((SELECT ${LAGOS_MONTH(table.oldest)} FROM ${unpartitioned} u ${table.joins}), ${LAGOS_MONTH('now()')}),
                              ${LAGOS_MONTH('now()')} + interval '${MONTHS_AHEAD} months', interval '1 month') month`,
      [table.name],
    );
    const columns = [...copied, ...table.addedColumns.map((column) => column.split(' ')[0]!)];
    await trx.raw(
      `INSERT INTO ${table.name} (${columns.join(', ')})
       SELECT ${[...copied.map((column) => `u.${column}`), ...table.addedValues].join(', ')} FROM ${unpartitioned} u ${table.joins}`,
    );
    await trx.raw(`DROP TABLE ${unpartitioned}`);
    await trx.raw(table.after);
    await trx.raw(`ANALYZE ${table.name}`);
  });
}

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) await partition(knex, table);
}

/** Back to single tables, with the unique indexes and foreign keys they had (in one transaction). */
export async function down(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw(
      `LOCK TABLE ${TABLES.map((table) => table.name).join(', ')}, inbound_event_request_keys, inbound_event_digest_keys IN ACCESS EXCLUSIVE MODE`,
    );
    for (const table of [...TABLES].reverse()) {
      await trx.raw(`ALTER TABLE ${table.name} RENAME TO ${table.name}_partitioned`);
      const kept = (await columnsOf(trx, `${table.name}_partitioned`)).filter(
        (column) => !table.addedColumns.some((added) => added.split(' ')[0] === column),
      );
      await trx.raw(
        `CREATE TABLE ${table.name} (LIKE ${table.name}_partitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)`,
      );
      for (const added of table.addedColumns) await trx.raw(`ALTER TABLE ${table.name} DROP COLUMN ${added.split(' ')[0]}`);
      await trx.raw(`INSERT INTO ${table.name} (${kept.join(', ')}) SELECT ${kept.join(', ')} FROM ${table.name}_partitioned`);
      await trx.raw(`DROP TABLE ${table.name}_partitioned CASCADE`);
    }
    await trx.raw(`
      DROP TABLE inbound_event_request_keys;
      DROP FUNCTION inbound_event_request_keys_append_only();
      DROP TABLE inbound_event_digest_keys;
      ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_pkey PRIMARY KEY (id);
      ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_assigned_account_id_fkey FOREIGN KEY (assigned_account_id) REFERENCES virtual_accounts (id);
      ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_assigned_by_fkey FOREIGN KEY (assigned_by) REFERENCES dashboard_users (id);
      CREATE INDEX inbound_events_assigned_entry_idx ON inbound_events (assigned_entry_id) WHERE assigned_entry_id IS NOT NULL;
      CREATE INDEX inbound_events_found_by_reconciliation_idx ON inbound_events (transaction_id) WHERE flags @> ARRAY['found_by_reconciliation'];
      CREATE INDEX inbound_events_misdirected_txn_idx ON inbound_events (transaction_id) WHERE category = 'misdirected';
      CREATE INDEX inbound_events_payload_kept_idx ON inbound_events (id) WHERE signature_valid AND (payload IS NOT NULL OR raw_body IS NOT NULL);
      CREATE UNIQUE INDEX inbound_events_request_id_key ON inbound_events (request_id) WHERE signature_valid AND request_id IS NOT NULL;
      CREATE INDEX inbound_events_tenant_category_idx ON inbound_events (tenant_id, category, id);
      CREATE UNIQUE INDEX inbound_events_unverified_digest_idx ON inbound_events (raw_sha256) WHERE NOT signature_valid AND raw_sha256 IS NOT NULL;
      CREATE INDEX inbound_events_unverified_idx ON inbound_events (id) WHERE NOT signature_valid;
      ALTER TABLE tenant_events ADD CONSTRAINT tenant_events_pkey PRIMARY KEY (id);
      CREATE INDEX tenant_events_subject_idx ON tenant_events (tenant_id, subject, sequence);
      CREATE INDEX tenant_events_tenant_time_idx ON tenant_events (tenant_id, created_at, id);
      CREATE INDEX tenant_events_tenant_xact_idx ON tenant_events (tenant_id, xact_id, id);
      CREATE INDEX tenant_events_undispatched_idx ON tenant_events (created_at) WHERE dispatched_at IS NULL;
      ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);
      ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id);
      ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_inbound_event_id_fkey FOREIGN KEY (inbound_event_id) REFERENCES inbound_events (id);
      ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_replay_of_fkey FOREIGN KEY (replay_of) REFERENCES webhook_deliveries (id);
      ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_tenant_event_id_fkey FOREIGN KEY (tenant_event_id) REFERENCES tenant_events (id);
      CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id) WHERE endpoint_id IS NOT NULL;
      CREATE INDEX webhook_deliveries_open_idx ON webhook_deliveries (status) WHERE status IN ('pending', 'retrying', 'dead_letter');
      CREATE INDEX webhook_deliveries_replay_of_idx ON webhook_deliveries (replay_of) WHERE replay_of IS NOT NULL;
      CREATE INDEX webhook_deliveries_tenant_idx ON webhook_deliveries (tenant_id, id);
      CREATE INDEX webhook_deliveries_tenant_status_idx ON webhook_deliveries (tenant_id, status, id);
      CREATE INDEX webhook_deliveries_updated_idx ON webhook_deliveries (updated_at);
      ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (delivery_id, attempt_no);
      ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries (id);`);
  });
}
