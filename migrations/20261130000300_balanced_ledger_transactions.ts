import type { Knex } from 'knex';

// Every movement of money becomes a ledger transaction of two or more postings that sum to zero: the
// customer accounts' entries (ledger_entries, with their running columns) and the tenant's system
// accounts' postings (ledger_system_postings, with no running total: their balances are sums).
// See docs/ledger.md for the chart of accounts.

const IMMUTABLE_COLUMNS = `id, tenant_id, account_id, seq, direction, kind, amount, fee, currency, narration, provider_txn_ref,
          transaction_group_id, reverses_entry_id, balance_after, credits_to_date, debits_to_date, created_at`;

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

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_entries ADD COLUMN transaction_id uuid;
    ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_append_only_row;
    -- Each entry written before this was its own movement.
    UPDATE ledger_entries SET transaction_id = id;
    ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_append_only_row;
    ALTER TABLE ledger_entries ALTER COLUMN transaction_id SET NOT NULL;
    CREATE INDEX ledger_entries_transaction_idx ON ledger_entries (tenant_id, transaction_id);
    ${appendOnlyFunction(`${IMMUTABLE_COLUMNS}, transaction_id`)}

    -- The other side of every movement, on the tenant's system accounts. No row lock and no running total:
    -- every payment of a tenant posts here, so a balance is the sum of an account's postings. A transaction
    -- posts at most once to each system account. No foreign key to tenants: its check would share-lock the
    -- tenant's row from every payment (the ledger writes the tenant of the customer entry or settlement).
    CREATE TABLE ledger_system_postings (
      transaction_id uuid NOT NULL,
      account text NOT NULL CHECK (account IN ('clearing', 'provider_fees', 'payouts_in_transit', 'costs')),
      tenant_id uuid NOT NULL,
      kind text NOT NULL CHECK (kind IN ('payment', 'settlement', 'reversal', 'adjustment', 'payout', 'payout_fee')),
      amount bigint NOT NULL CHECK (amount <> 0),
      reference text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (tenant_id, transaction_id, account)
    );

    CREATE FUNCTION ledger_system_postings_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'ledger_system_postings is append-only: % refused', TG_OP;
    END;
    $$;
    CREATE TRIGGER ledger_system_postings_append_only_row BEFORE UPDATE OR DELETE ON ledger_system_postings
      FOR EACH ROW EXECUTE FUNCTION ledger_system_postings_append_only();
    CREATE TRIGGER ledger_system_postings_append_only_truncate BEFORE TRUNCATE ON ledger_system_postings
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_system_postings_append_only();

    -- Postgres refuses an unbalanced transaction: at the end of every statement that writes postings, each
    -- transaction it touched must have two or more postings of its tenant, summing to zero (a customer entry
    -- counts its credit as +, its debit as -). Judged per tenant, so every tenant's books sum to zero whatever
    -- ids a writer chose. One check per statement over the rows it wrote (a transition table), not one per
    -- row at commit: a group of credits to a hot account holds its row lock until commit, and per-row checks
    -- there would run inside that lock. Every writer writes a transaction's postings in one statement.
    CREATE FUNCTION ledger_transactions_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      unbalanced record;
    BEGIN
      SELECT t.tenant_id, t.transaction_id, s.postings, s.total INTO unbalanced
        FROM (SELECT DISTINCT tenant_id, transaction_id FROM written) t
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
      REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION ledger_transactions_balanced();
    CREATE TRIGGER ledger_system_postings_balanced AFTER INSERT ON ledger_system_postings
      REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION ledger_transactions_balanced();
  `);
  await backfillSystemPostings(knex);
}

/**
 * The system side of the entries written before this migration. A payment (or a restored credit) took its
 * gross from clearing and its fee into provider fees; a compensation and a reversal of such a credit did
 * the opposite. A settlement debit put its amount in transit; one that paid moved it on to clearing, with
 * its payout fee from clearing to costs. A settlement reversed after paying is booked as if it had failed:
 * the balances end the same.
 */
async function backfillSystemPostings(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION pg_temp.time_ordered_uuid(at timestamptz) RETURNS uuid LANGUAGE sql AS $$
      SELECT CAST(lpad(to_hex(CAST(floor(extract(epoch FROM at) * 1000) AS bigint)), 12, '0') || '7'
                  || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15) AS uuid)
    $$;`);
  await knex.raw(`
    INSERT INTO ledger_system_postings (transaction_id, account, tenant_id, kind, amount, reference, created_at)
    SELECT e.transaction_id, p.account, e.tenant_id, e.kind, p.amount, e.provider_txn_ref, e.created_at
      FROM ledger_entries e
      LEFT JOIN ledger_entries o ON o.id = e.reverses_entry_id
      CROSS JOIN LATERAL (
        SELECT CASE WHEN e.direction = 'credit' THEN 1 ELSE -1 END AS sign,
               CASE WHEN e.kind = 'reversal' THEN o.fee ELSE e.fee END AS fee,
               e.kind = 'settlement' OR (e.kind = 'reversal' AND o.kind = 'settlement') AS payout
      ) s
      CROSS JOIN LATERAL (VALUES
        ('clearing', CASE WHEN s.payout THEN 0 ELSE -s.sign * (e.amount + s.fee) END),
        ('provider_fees', CASE WHEN s.payout THEN 0 ELSE s.sign * s.fee END),
        ('payouts_in_transit', CASE WHEN s.payout THEN -s.sign * e.amount ELSE 0 END)
      ) AS p(account, amount)
     WHERE p.amount <> 0;

    WITH paid AS (
      SELECT e.tenant_id, e.amount, e.provider_txn_ref, coalesce(s.provider_fee, 0) AS fee, coalesce(e.status_changed_at, e.created_at) AS at
        FROM ledger_entries e JOIN settlements s ON s.debit_entry_id = e.id
       WHERE e.kind = 'settlement' AND e.status = 'confirmed'
    ), transactions AS (
      -- Time-ordered ids (as uuidv7: milliseconds first), so the journal lists them by when they happened.
      SELECT pg_temp.time_ordered_uuid(paid.at) AS payout_id, pg_temp.time_ordered_uuid(paid.at + interval '1 millisecond') AS fee_id, paid.* FROM paid
    )
    INSERT INTO ledger_system_postings (transaction_id, account, tenant_id, kind, amount, reference, created_at)
    SELECT t.transaction_id, t.account, t.tenant_id, t.kind, t.amount, t.provider_txn_ref, t.at
      FROM transactions x
      CROSS JOIN LATERAL (VALUES
        (x.payout_id, 'payouts_in_transit', x.tenant_id, 'payout', -x.amount, x.provider_txn_ref, x.at),
        (x.payout_id, 'clearing', x.tenant_id, 'payout', x.amount, x.provider_txn_ref, x.at),
        (x.fee_id, 'clearing', x.tenant_id, 'payout_fee', x.fee, x.provider_txn_ref, x.at),
        (x.fee_id, 'costs', x.tenant_id, 'payout_fee', -x.fee, x.provider_txn_ref, x.at)
      ) AS t(transaction_id, account, tenant_id, kind, amount, provider_txn_ref, at)
     WHERE t.amount <> 0;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER ledger_entries_balanced ON ledger_entries;
    DROP TABLE ledger_system_postings;
    DROP FUNCTION ledger_transactions_balanced();
    DROP FUNCTION ledger_system_postings_append_only();
    ${appendOnlyFunction(IMMUTABLE_COLUMNS)}
    DROP INDEX ledger_entries_transaction_idx;
    ALTER TABLE ledger_entries DROP COLUMN transaction_id;
  `);
}
