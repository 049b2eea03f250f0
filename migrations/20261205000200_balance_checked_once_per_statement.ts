import type { Knex } from 'knex';

/**
 * A statement that writes a transaction's customer entries and its system postings fired both balance triggers,
 * and each checked that transaction in full. The system postings' trigger still checks every transaction it
 * touched, across both tables; the entries' trigger now leaves out a transaction that this same statement gave
 * a system posting (a posting with the inserted entries' transaction and command id, xmin and cmin: system
 * postings are never updated, so theirs are those of their insert). That statement's system-postings trigger
 * runs after all its rows are written and checks the transaction whole. Any other transaction (entries alone,
 * as a transfer; or postings from two statements) is checked here as before, so a writer that splits a
 * transaction's postings over two statements is refused at the first: every transaction is written whole by
 * one statement.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
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
    DROP TRIGGER ledger_entries_balanced ON ledger_entries;
    CREATE TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
      REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_balanced();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER ledger_entries_balanced ON ledger_entries;
    CREATE TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
      REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION ledger_transactions_balanced();
    DROP FUNCTION ledger_entries_balanced();
  `);
}
