import type { Knex } from 'knex';

/**
 * Most transactions are one customer entry and its postings to system accounts (a payment, a settlement debit, a
 * reversal, a restoration). The entry now carries those postings' amounts itself, in three columns (clearing,
 * provider_fees, payouts_in_transit; null together when it carries none), and a row CHECK holds them and the entry's
 * signed amount to zero: such a transaction is balanced the moment its row is valid, writes no system-posting row and
 * needs no trigger. A transaction of entries without counters (a transfer, the parts of a compensation) is checked by
 * a row trigger that fires only for such an entry, over its transaction's entries (their counters included) and
 * system-posting rows. A transaction between system accounts only (a payout, its fee) stays rows of its own, checked
 * by their statement trigger as before, which now counts the entries' counters too: a row added to an entry's
 * transaction is checked with the entry.
 *
 * The system-postings table becomes ledger_system_posting_rows (those transactions, and the postings of entries
 * written before this migration, which stay where they are); a view under the old name adds the entries' counters,
 * so every reader sees one set of postings however they are stored.
 */
const COUNTERS = ['clearing_amount', 'provider_fees_amount', 'payouts_in_transit_amount'];

const IMMUTABLE_COLUMNS = `id, tenant_id, account_id, seq, direction, kind, amount, fee, currency, narration, provider_txn_ref,
          transaction_group_id, reverses_entry_id, balance_after, credits_to_date, debits_to_date, created_at, transaction_id`;

function appendOnlyFunction(columns: string): string {
  const tuple = (row: string) => columns.replace(/(\w+)/g, `${row}.$1`);
  return `
    CREATE OR REPLACE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'UPDATE' THEN
        RAISE EXCEPTION 'ledger_entries is append-only: % refused', TG_OP;
      END IF;
      IF (${tuple('NEW')}) IS DISTINCT FROM (${tuple('OLD')}) THEN
        RAISE EXCEPTION 'ledger entry % is immutable except for its status', OLD.id;
      END IF;
      IF NOT ((OLD.status = 'provisional' AND NEW.status IN ('confirmed', 'reversed'))
              OR (OLD.status = 'confirmed' AND NEW.status = 'reversed' AND OLD.kind = 'settlement')) THEN
        RAISE EXCEPTION 'ledger entry % cannot move from % to %', OLD.id, OLD.status, NEW.status;
      END IF;
      RETURN NEW;
    END;
    $$;`;
}

/**
 * The postings of one transaction as rows (postings: how many, amount: their sum), two index probes: each of its
 * entries with its counters, and its system-posting rows.
 */
function transactionPostings(tenantId: string, transactionId: string): string {
  return `(SELECT 1 + coalesce((e.clearing_amount <> 0)::int + (e.provider_fees_amount <> 0)::int + (e.payouts_in_transit_amount <> 0)::int, 0)
                 AS postings,
               CASE WHEN e.direction = 'credit' THEN e.amount ELSE -e.amount END
                 + coalesce(e.clearing_amount + e.provider_fees_amount + e.payouts_in_transit_amount, 0) AS amount
          FROM ledger_entries e WHERE e.tenant_id = ${tenantId} AND e.transaction_id = ${transactionId}
        UNION ALL
        SELECT 1, x.amount FROM ledger_system_posting_rows x WHERE x.tenant_id = ${tenantId} AND x.transaction_id = ${transactionId})`;
}

/** The system-posting rows' statement check, over the transactions a statement wrote rows of (written), reading `postings`. */
function rowsStatementCheck(postings: (tenantId: string, transactionId: string) => string, count: string): string {
  return `
    CREATE OR REPLACE FUNCTION ledger_transactions_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      unbalanced record;
    BEGIN
      SELECT t.tenant_id, t.transaction_id, s.postings, s.total INTO unbalanced
        FROM (SELECT DISTINCT tenant_id, transaction_id FROM written) t
        CROSS JOIN LATERAL (
          SELECT ${count} AS postings, coalesce(sum(p.amount), 0) AS total FROM ${postings('t.tenant_id', 't.transaction_id')} p
        ) s
       WHERE s.total <> 0 OR s.postings < 2
       LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % of tenant % is unbalanced: % postings summing to % kobo',
          unbalanced.transaction_id, unbalanced.tenant_id, unbalanced.postings, unbalanced.total
          USING ERRCODE = 'check_violation';
      END IF;
      RETURN NULL;
    END;
    $$;`;
}

/** The postings of one transaction before this migration: its entries' signed amounts and its system postings. */
function transactionPostingsBefore(tenantId: string, transactionId: string): string {
  return `(SELECT CASE WHEN e.direction = 'credit' THEN e.amount ELSE -e.amount END AS amount
                    FROM ledger_entries e WHERE e.tenant_id = ${tenantId} AND e.transaction_id = ${transactionId}
                  UNION ALL
                  SELECT x.amount FROM ledger_system_postings x WHERE x.tenant_id = ${tenantId} AND x.transaction_id = ${transactionId})`;
}

/** The statement trigger the entries had before: it checked every transaction a statement wrote entries of. */
const ENTRIES_STATEMENT_CHECK = `
    CREATE FUNCTION ledger_entries_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      command_xmin xid;
      command_cmin cid;
      unbalanced record;
    BEGIN
      SELECT e.xmin, e.cmin INTO command_xmin, command_cmin FROM ledger_entries e WHERE e.id = (SELECT w.id FROM written w LIMIT 1);
      IF NOT FOUND THEN
        RETURN NULL;
      END IF;
      SELECT t.tenant_id, t.transaction_id, s.postings, s.total INTO unbalanced
        FROM (SELECT d.tenant_id, d.transaction_id FROM (SELECT DISTINCT tenant_id, transaction_id FROM written) d
               WHERE NOT EXISTS (SELECT 1 FROM ledger_system_postings x
                                  WHERE x.tenant_id = d.tenant_id AND x.transaction_id = d.transaction_id
                                    AND x.xmin = command_xmin AND x.cmin = command_cmin)) t
        CROSS JOIN LATERAL (
          SELECT count(*) AS postings, coalesce(sum(p.amount), 0) AS total
            FROM (SELECT CASE WHEN e.direction = 'credit' THEN e.amount ELSE -e.amount END AS amount
                    FROM ledger_entries e WHERE e.tenant_id = t.tenant_id AND e.transaction_id = t.transaction_id
                  UNION ALL
                  SELECT x.amount FROM ledger_system_postings x WHERE x.tenant_id = t.tenant_id AND x.transaction_id = t.transaction_id) p
        ) s
       WHERE s.total <> 0 OR s.postings < 2
       LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % of tenant % is unbalanced: % postings summing to % kobo',
          unbalanced.transaction_id, unbalanced.tenant_id, unbalanced.postings, unbalanced.total
          USING ERRCODE = 'check_violation';
      END IF;
      RETURN NULL;
    END;
    $$;
    CREATE TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
      REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_balanced();`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_entries ${COUNTERS.map((column) => `ADD COLUMN ${column} bigint`).join(', ')},
      ADD CONSTRAINT ledger_entries_counters_balance CHECK (
        (clearing_amount IS NULL AND provider_fees_amount IS NULL AND payouts_in_transit_amount IS NULL)
        OR (clearing_amount IS NOT NULL AND provider_fees_amount IS NOT NULL AND payouts_in_transit_amount IS NOT NULL
            AND CASE WHEN direction = 'credit' THEN amount ELSE -amount END
                + clearing_amount + provider_fees_amount + payouts_in_transit_amount = 0));
    ${appendOnlyFunction(`${IMMUTABLE_COLUMNS}, ${COUNTERS.join(', ')}`)}

    ALTER TABLE ledger_system_postings RENAME TO ledger_system_posting_rows;
    ALTER INDEX ledger_system_postings_pkey RENAME TO ledger_system_posting_rows_pkey;
    CREATE VIEW ledger_system_postings AS
      SELECT transaction_id, account, tenant_id, kind, amount, reference, created_at FROM ledger_system_posting_rows
      UNION ALL
      SELECT e.transaction_id, c.account, e.tenant_id, e.kind, c.amount, e.provider_txn_ref, e.created_at
        FROM ledger_entries e
       CROSS JOIN LATERAL (VALUES ('clearing', e.clearing_amount), ('provider_fees', e.provider_fees_amount),
                                  ('payouts_in_transit', e.payouts_in_transit_amount)) AS c(account, amount)
       WHERE c.amount <> 0;

    -- An entry without counters: its transaction (its tenant's entries with their counters, and the system-posting
    -- rows) has two or more postings summing to zero. A row trigger queued to the end of the statement, so it sees
    -- the transaction's other entries the statement writes; it fires for each such entry (a transfer is checked once
    -- per side).
    CREATE FUNCTION ledger_entry_transaction_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      postings bigint;
      total numeric;
    BEGIN
      SELECT coalesce(sum(p.postings), 0), coalesce(sum(p.amount), 0) INTO postings, total
        FROM ${transactionPostings('NEW.tenant_id', 'NEW.transaction_id')} p;
      IF total <> 0 OR postings < 2 THEN
        RAISE EXCEPTION 'ledger transaction % of tenant % is unbalanced: % postings summing to % kobo',
          NEW.transaction_id, NEW.tenant_id, postings, total
          USING ERRCODE = 'check_violation';
      END IF;
      RETURN NULL;
    END;
    $$;
    DROP TRIGGER ledger_entries_balanced ON ledger_entries;
    DROP FUNCTION ledger_entries_balanced();
    CREATE TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
      FOR EACH ROW WHEN (NEW.clearing_amount IS NULL) EXECUTE FUNCTION ledger_entry_transaction_balanced();
    ${rowsStatementCheck(transactionPostings, 'coalesce(sum(p.postings), 0)')}
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER ledger_entries_balanced ON ledger_entries;
    DROP FUNCTION ledger_entry_transaction_balanced();
    DROP VIEW ledger_system_postings;
    ALTER INDEX ledger_system_posting_rows_pkey RENAME TO ledger_system_postings_pkey;
    ALTER TABLE ledger_system_posting_rows RENAME TO ledger_system_postings;
    -- The entries' counters become rows again; each such transaction was balanced by its entry, so the check is not
    -- needed for the copy (it would see the counters twice while the columns are there).
    ALTER TABLE ledger_system_postings DISABLE TRIGGER ledger_system_postings_balanced;
    INSERT INTO ledger_system_postings (transaction_id, account, tenant_id, kind, amount, reference, created_at)
    SELECT e.transaction_id, c.account, e.tenant_id, e.kind, c.amount, e.provider_txn_ref, e.created_at
      FROM ledger_entries e
     CROSS JOIN LATERAL (VALUES ('clearing', e.clearing_amount), ('provider_fees', e.provider_fees_amount),
                                ('payouts_in_transit', e.payouts_in_transit_amount)) AS c(account, amount)
     WHERE c.amount <> 0;
    ALTER TABLE ledger_system_postings ENABLE TRIGGER ledger_system_postings_balanced;
    ${rowsStatementCheck(transactionPostingsBefore, 'count(*)')}
    ${appendOnlyFunction(IMMUTABLE_COLUMNS)}
    ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_counters_balance, ${COUNTERS.map((column) => `DROP COLUMN ${column}`).join(', ')};
    ${ENTRIES_STATEMENT_CHECK}
  `);
}
