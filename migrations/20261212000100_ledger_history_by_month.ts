import type { Knex } from 'knex';

/**
 * The ledger's history (its entries and its system-posting rows) partitioned by month of `created_at`, so that a
 * statement of a month reads that month's partition only, the months ahead are made by the worker's history loop,
 * and an old month can be detached whole for archive (`history:detach`). Months are Africa/Lagos months, as the
 * platform's days are; each table has a DEFAULT partition, so no insert ever waits for a month to be made.
 *
 * Postgres holds a unique index of a partitioned table only within a partition, so every one names `created_at`. The
 * rules that must hold across months move to small unpartitioned key tables the posting statement writes with its
 * entries: one payment credit per provider transaction (ledger_payment_credit_keys) and one answer per entry
 * (ledger_entry_reversal_keys). An account's seq stays unique per partition; across months its account row's lock
 * keeps it gapless (ledger:verify's running-columns check reads it). Foreign keys cannot name a partitioned table's
 * id alone: those naming an entry are dropped, and ledger:verify's orphan check names any row whose entry is missing.
 *
 * Cost on a ledger with data: both tables are copied whole in this one transaction, under an exclusive lock (no
 * posting meanwhile), and their indexes are built again: minutes per ten million entries (see docs/scaling.md).
 */

const LAGOS_MONTH = (timestamp: string) => `date_trunc('month', ${timestamp} AT TIME ZONE 'Africa/Lagos')::date`;

/**
 * history_month_partition(parent, month): makes the month's partition of `parent` (named <parent>_yYYYYmMM) unless
 * it exists, and says whether it made it. Rows of the month waiting in the DEFAULT partition move into it: the
 * default is detached (its cloned triggers go with the detach), the rows moved, and both attached again. The new
 * partition takes the parent's TRUNCATE triggers, which Postgres does not clone. One advisory lock serialises
 * every maker, so two workers making the same month wait for each other.
 */
const MONTH_PARTITION_FUNCTION = `
  CREATE FUNCTION history_month_partition(parent text, month date) RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    first date := date_trunc('month', month)::date;
    name text := format('%s_y%sm%s', parent, to_char(first, 'YYYY'), to_char(first, 'MM'));
    fallback text := parent || '_default';
    starts timestamptz := first::timestamp AT TIME ZONE 'Africa/Lagos';
    ends timestamptz := (first + 1 * interval '1 month')::timestamp AT TIME ZONE 'Africa/Lagos';
    waiting boolean;
    truncate_trigger record;
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('history_month_partition'));
    IF to_regclass(name) IS NOT NULL THEN
      RETURN false;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', name, parent);
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE created_at >= $1 AND created_at < $2)', fallback) INTO waiting USING starts, ends;
    IF waiting THEN
      EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', parent, fallback);
      EXECUTE format('INSERT INTO %I SELECT * FROM %I WHERE created_at >= $1 AND created_at < $2', name, fallback) USING starts, ends;
      EXECUTE format('DELETE FROM %I WHERE created_at >= $1 AND created_at < $2', fallback) USING starts, ends;
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, name, starts, ends);
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I DEFAULT', parent, fallback);
    ELSE
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, name, starts, ends);
    END IF;
    FOR truncate_trigger IN
      SELECT t.tgname, t.tgfoid::regproc AS function FROM pg_trigger t WHERE t.tgrelid = parent::regclass AND t.tgtype & 32 <> 0
    LOOP
      EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION %s()', truncate_trigger.tgname, name, truncate_trigger.function);
    END LOOP;
    RETURN true;
  END;
  $$`;

/** The system accounts' postings: the system-posting rows and each entry's counters (as 20261207000200 made it). */
const SYSTEM_POSTINGS_VIEW = `
  CREATE VIEW ledger_system_postings AS
    SELECT transaction_id, account, tenant_id, kind, amount, reference, created_at FROM ledger_system_posting_rows
    UNION ALL
    SELECT e.transaction_id, c.account, e.tenant_id, e.kind, c.amount, e.provider_txn_ref, e.created_at
      FROM ledger_entries e
     CROSS JOIN LATERAL (VALUES ('clearing', e.clearing_amount), ('provider_fees', e.provider_fees_amount),
                                ('payouts_in_transit', e.payouts_in_transit_amount)) AS c(account, amount)
     WHERE c.amount <> 0`;

/** The foreign keys naming an entry by id, which a partitioned ledger_entries cannot hold (child table, constraint, column). */
const ENTRY_REFERENCES: ReadonlyArray<[string, string, string]> = [
  ['settlements', 'settlements_debit_entry_id_fkey', 'debit_entry_id'],
  ['settlements', 'settlements_reversal_entry_id_fkey', 'reversal_entry_id'],
  ['internal_transfers', 'internal_transfers_credit_entry_id_fkey', 'credit_entry_id'],
  ['internal_transfers', 'internal_transfers_debit_entry_id_fkey', 'debit_entry_id'],
  ['split_moves', 'split_moves_taken_back_entry_id_fkey', 'taken_back_entry_id'],
  ['reconciliation_exceptions', 'reconciliation_exceptions_entry_id_fkey', 'entry_id'],
  ['reconciliation_exceptions', 'reconciliation_exceptions_repair_entry_id_fkey', 'repair_entry_id'],
  ['ledger_reservation_changes', 'ledger_reservation_changes_entry_id_fkey', 'entry_id'],
  ['inbound_events', 'inbound_events_assigned_entry_id_fkey', 'assigned_entry_id'],
  ['ledger_entries', 'ledger_entries_reverses_entry_id_fkey', 'reverses_entry_id'],
];

const ENTRY_TRIGGERS = `
  CREATE TRIGGER ledger_entries_append_only_row BEFORE DELETE OR UPDATE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();
  CREATE TRIGGER ledger_entries_append_only_truncate BEFORE TRUNCATE ON ledger_entries
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_append_only();
  CREATE TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
    FOR EACH ROW WHEN (NEW.clearing_amount IS NULL) EXECUTE FUNCTION ledger_entry_transaction_balanced();`;

const SYSTEM_ROW_TRIGGERS = `
  CREATE TRIGGER ledger_system_postings_append_only_row BEFORE DELETE OR UPDATE ON ledger_system_posting_rows
    FOR EACH ROW EXECUTE FUNCTION ledger_system_postings_append_only();
  CREATE TRIGGER ledger_system_postings_append_only_truncate BEFORE TRUNCATE ON ledger_system_posting_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_system_postings_append_only();
  CREATE TRIGGER ledger_system_postings_balanced AFTER INSERT ON ledger_system_posting_rows
    REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION ledger_transactions_balanced();`;

/**
 * Indexes of the partitioned entries: the unique ones name created_at, the partition key. A payment credit is found by
 * its provider transaction through its key (ledger_payment_credit_keys), which names the entry's whole key.
 */
const ENTRY_INDEXES = `
  ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (id, created_at);
  CREATE UNIQUE INDEX ledger_entries_account_seq_key ON ledger_entries (account_id, seq, created_at);
  CREATE INDEX ledger_entries_account_time_idx ON ledger_entries (account_id, created_at, seq)
    INCLUDE (balance_after, credits_to_date, debits_to_date);
  CREATE INDEX ledger_entries_reverses_idx ON ledger_entries (reverses_entry_id) WHERE reverses_entry_id IS NOT NULL;
  CREATE INDEX ledger_entries_payout_debits_idx ON ledger_entries (created_at)
    WHERE direction = 'debit' AND kind IN ('settlement', 'transfer');
  CREATE INDEX ledger_entries_provisional_payments_idx ON ledger_entries (created_at) WHERE kind = 'payment' AND status = 'provisional';
  CREATE INDEX ledger_entries_status_changed_idx ON ledger_entries (status_changed_at) WHERE status_changed_at IS NOT NULL;
  CREATE INDEX ledger_entries_transaction_idx ON ledger_entries (tenant_id, transaction_id);`;

/** How many months ahead of the current one the migration makes (the worker's loop keeps HISTORY_MONTHS_AHEAD). */
const MONTHS_AHEAD = 3;

/** Makes `parent`'s DEFAULT partition and a partition for every month from `sinceSql`'s month (a date) to MONTHS_AHEAD ahead. */
async function partitionsFor(knex: Knex, parent: string, sinceSql: string): Promise<void> {
  await knex.raw(`CREATE TABLE ${parent}_default PARTITION OF ${parent} DEFAULT`);
  await knex.raw(
    `SELECT history_month_partition(?, month::date)
       FROM generate_series(least(${sinceSql}, ${LAGOS_MONTH('now()')}), ${LAGOS_MONTH('now()')} + interval '${MONTHS_AHEAD} months', interval '1 month') month`,
    [parent],
  );
}

/**
 * Every table the migration alters, locked at once before any is changed: a lock taken later, or raised from a weaker
 * one, could deadlock with a posting or a settlement holding one of them.
 */
const lockTables = (knex: Knex) =>
  knex.raw(
    `LOCK TABLE ${[...new Set(ENTRY_REFERENCES.map(([table]) => table))].join(', ')}, ledger_system_posting_rows IN ACCESS EXCLUSIVE MODE`,
  );

export async function up(knex: Knex): Promise<void> {
  await lockTables(knex);
  await knex.raw(MONTH_PARTITION_FUNCTION);
  await knex.raw('DROP VIEW ledger_system_postings');
  for (const [table, constraint] of ENTRY_REFERENCES) await knex.raw(`ALTER TABLE ${table} DROP CONSTRAINT ${constraint}`);

  // The rules that must hold across months, as keys of their own, filled from the entries there are.
  await knex.raw(`
    CREATE TABLE ledger_payment_credit_keys (
      provider_txn_ref text PRIMARY KEY,
      tenant_id uuid NOT NULL,
      entry_id uuid NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE TABLE ledger_entry_reversal_keys (
      reverses_entry_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      entry_id uuid NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE FUNCTION ledger_keys_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP;
    END;
    $$;
    CREATE TRIGGER ledger_payment_credit_keys_append_only BEFORE DELETE OR UPDATE ON ledger_payment_credit_keys
      FOR EACH ROW EXECUTE FUNCTION ledger_keys_append_only();
    CREATE TRIGGER ledger_payment_credit_keys_append_only_truncate BEFORE TRUNCATE ON ledger_payment_credit_keys
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_keys_append_only();
    CREATE TRIGGER ledger_entry_reversal_keys_append_only BEFORE DELETE OR UPDATE ON ledger_entry_reversal_keys
      FOR EACH ROW EXECUTE FUNCTION ledger_keys_append_only();
    CREATE TRIGGER ledger_entry_reversal_keys_append_only_truncate BEFORE TRUNCATE ON ledger_entry_reversal_keys
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_keys_append_only();
    INSERT INTO ledger_payment_credit_keys (provider_txn_ref, tenant_id, entry_id, created_at)
      SELECT provider_txn_ref, tenant_id, id, created_at FROM ledger_entries WHERE kind = 'payment';
    INSERT INTO ledger_entry_reversal_keys (reverses_entry_id, tenant_id, entry_id, created_at)
      SELECT reverses_entry_id, tenant_id, id, created_at FROM ledger_entries WHERE reverses_entry_id IS NOT NULL;`);

  for (const table of ['ledger_entries', 'ledger_system_posting_rows']) {
    await knex.raw(`ALTER TABLE ${table} RENAME TO ${table}_unpartitioned`);
    await knex.raw(
      `CREATE TABLE ${table} (LIKE ${table}_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE) PARTITION BY RANGE (created_at)`,
    );
    await partitionsFor(knex, table, `(SELECT ${LAGOS_MONTH('min(created_at)')} FROM ${table}_unpartitioned)`);
    // Moved before the triggers exist: a transaction's rows were balanced when they were written.
    await knex.raw(`INSERT INTO ${table} SELECT * FROM ${table}_unpartitioned`);
    await knex.raw(`DROP TABLE ${table}_unpartitioned`);
  }
  await knex.raw(ENTRY_INDEXES);
  await knex.raw(
    'ALTER TABLE ledger_system_posting_rows ADD CONSTRAINT ledger_system_posting_rows_pkey PRIMARY KEY (tenant_id, transaction_id, account, created_at)',
  );
  // The triggers after the copy (the balance checks would see half-copied transactions); the partitions made from now
  // on take the TRUNCATE triggers from their parent, those made above take them here.
  await knex.raw(ENTRY_TRIGGERS);
  await knex.raw(SYSTEM_ROW_TRIGGERS);
  await knex.raw(`
    DO $$
    DECLARE partition record;
    BEGIN
      FOR partition IN
        SELECT c.relname, p.relname AS parent FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
         WHERE p.relname IN ('ledger_entries', 'ledger_system_posting_rows')
      LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION %s()',
                       CASE WHEN partition.parent = 'ledger_entries' THEN 'ledger_entries_append_only_truncate' ELSE 'ledger_system_postings_append_only_truncate' END,
                       partition.relname,
                       CASE WHEN partition.parent = 'ledger_entries' THEN 'ledger_entries_append_only' ELSE 'ledger_system_postings_append_only' END);
      END LOOP;
    END $$`);
  await knex.raw(SYSTEM_POSTINGS_VIEW);
  await knex.raw('ANALYZE ledger_entries, ledger_system_posting_rows');
}

export async function down(knex: Knex): Promise<void> {
  await lockTables(knex);
  await knex.raw('DROP VIEW ledger_system_postings');
  for (const table of ['ledger_entries', 'ledger_system_posting_rows']) {
    await knex.raw(`ALTER TABLE ${table} RENAME TO ${table}_partitioned`);
    await knex.raw(`CREATE TABLE ${table} (LIKE ${table}_partitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)`);
    await knex.raw(`INSERT INTO ${table} SELECT * FROM ${table}_partitioned`);
    await knex.raw(`DROP TABLE ${table}_partitioned CASCADE`);
  }
  await knex.raw(`
    ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (id);
    ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_account_seq_key UNIQUE (account_id, seq);
    CREATE INDEX ledger_entries_account_time_idx ON ledger_entries (account_id, created_at, seq)
      INCLUDE (balance_after, credits_to_date, debits_to_date);
    CREATE UNIQUE INDEX ledger_entries_one_payment_per_txn_idx ON ledger_entries (provider_txn_ref) WHERE kind = 'payment';
    CREATE UNIQUE INDEX ledger_entries_one_reversal_idx ON ledger_entries (reverses_entry_id) WHERE reverses_entry_id IS NOT NULL;
    CREATE INDEX ledger_entries_payout_debits_idx ON ledger_entries (created_at)
      WHERE direction = 'debit' AND kind IN ('settlement', 'transfer');
    CREATE INDEX ledger_entries_provisional_payments_idx ON ledger_entries (created_at) WHERE kind = 'payment' AND status = 'provisional';
    CREATE INDEX ledger_entries_status_changed_idx ON ledger_entries (status_changed_at) WHERE status_changed_at IS NOT NULL;
    CREATE INDEX ledger_entries_transaction_idx ON ledger_entries (tenant_id, transaction_id);
    ALTER TABLE ledger_system_posting_rows ADD CONSTRAINT ledger_system_posting_rows_pkey PRIMARY KEY (tenant_id, transaction_id, account);`);
  await knex.raw(ENTRY_TRIGGERS);
  await knex.raw(SYSTEM_ROW_TRIGGERS);
  for (const [table, constraint, column] of ENTRY_REFERENCES) {
    const deferred = table === 'ledger_reservation_changes' ? ' DEFERRABLE INITIALLY DEFERRED' : '';
    await knex.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${constraint} FOREIGN KEY (${column}) REFERENCES ledger_entries (id)${deferred}`);
  }
  await knex.raw(SYSTEM_POSTINGS_VIEW);
  await knex.raw(`
    DROP TABLE ledger_payment_credit_keys;
    DROP TABLE ledger_entry_reversal_keys;
    DROP FUNCTION ledger_keys_append_only();
    DROP FUNCTION history_month_partition(text, date);`);
}
