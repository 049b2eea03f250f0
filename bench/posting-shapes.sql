-- What each shape of ledger transaction costs Postgres at write time, its balance check included: the entry rows
-- (and system-posting rows) alone, without the account rows a posting also moves. Run on a scratch database migrated
-- by the commit to measure (the ledger tables only are written; entries get a created_at default for brevity).
-- `shape_bench(shape, n)` writes n transactions of the shape in the caller's transaction and returns the backend's
-- on-CPU µs per statement (/proc/self/schedstat; needs a superuser). Shapes: payment (a credit and its clearing and
-- fee postings), settlement (a provisional debit and its payouts in transit), transfer (a debit and a credit, no
-- system posting), payout (two system postings: in transit to clearing). See bench/README.md for how it is run.
\set ON_ERROR_STOP on
ALTER TABLE ledger_entries ALTER created_at SET DEFAULT clock_timestamp();

DO $do$
DECLARE
  -- Entries carry their counters (clearing, provider fees, in transit) when the table has the columns; else the
  -- system side is rows of ledger_system_postings, written in the same statement.
  counters boolean := EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'ledger_entries' AND column_name = 'clearing_amount');
  entry text := $$INSERT INTO ledger_entries (id, tenant_id, account_id, seq, direction, kind, amount, fee, currency, status, provider_txn_ref,
                     transaction_group_id, transaction_id, balance_after, credits_to_date, debits_to_date%s)$$;
  postings text := 'INSERT INTO %s (transaction_id, account, tenant_id, kind, amount, reference) VALUES %s';
  rows_table text := CASE WHEN counters THEN 'ledger_system_posting_rows' ELSE 'ledger_system_postings' END;
  payment text;
  settlement text;
BEGIN
  IF counters THEN
    payment := format(entry, ', clearing_amount, provider_fees_amount, payouts_in_transit_amount')
      || $$ VALUES (gen_random_uuid(), tenant, gen_random_uuid(), 1, 'credit', 'payment', 1000, 25, 'NGN', 'provisional', tx::text, tx, tx, 1000, 1000, 0, -1025, 25, 0)$$;
    settlement := format(entry, ', clearing_amount, provider_fees_amount, payouts_in_transit_amount')
      || $$ VALUES (gen_random_uuid(), tenant, gen_random_uuid(), 1, 'debit', 'settlement', 500, 0, 'NGN', 'provisional', NULL, tx, tx, 0, 500, 500, 0, 0, 500)$$;
  ELSE
    payment := 'WITH e AS (' || format(entry, '')
      || $$ VALUES (gen_random_uuid(), tenant, gen_random_uuid(), 1, 'credit', 'payment', 1000, 25, 'NGN', 'provisional', tx::text, tx, tx, 1000, 1000, 0) RETURNING 1) $$
      || format(postings, rows_table, $$(tx, 'clearing', tenant, 'payment', -1025, 'r'), (tx, 'provider_fees', tenant, 'payment', 25, 'r')$$);
    settlement := 'WITH e AS (' || format(entry, '')
      || $$ VALUES (gen_random_uuid(), tenant, gen_random_uuid(), 1, 'debit', 'settlement', 500, 0, 'NGN', 'provisional', NULL, tx, tx, 0, 500, 500) RETURNING 1) $$
      || format(postings, rows_table, $$(tx, 'payouts_in_transit', tenant, 'settlement', 500, 'r')$$);
  END IF;
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION shape_one(shape text, tenant uuid, tx uuid) RETURNS void LANGUAGE plpgsql AS $body$
    BEGIN
      IF shape = 'payment' THEN
        %s;
      ELSIF shape = 'settlement' THEN
        %s;
      ELSIF shape = 'transfer' THEN
        %s VALUES (gen_random_uuid(), tenant, gen_random_uuid(), 1, 'debit', 'transfer', 700, 0, 'NGN', 'confirmed', NULL, tx, tx, 0, 700, 700),
                  (gen_random_uuid(), tenant, gen_random_uuid(), 1, 'credit', 'transfer', 700, 0, 'NGN', 'confirmed', NULL, tx, tx, 700, 700, 0);
      ELSE
        %s;
      END IF;
    END $body$;$f$,
    payment, settlement, format(entry, ''),
    format(postings, rows_table, $$(tx, 'payouts_in_transit', tenant, 'payout', -500, 'r'), (tx, 'clearing', tenant, 'payout', 500, 'r')$$));
END $do$;

CREATE OR REPLACE FUNCTION shape_bench(shape text, n int) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  c0 bigint;
  c1 bigint;
  tenant uuid := '00000000-0000-7000-8000-000000000001';
BEGIN
  c0 := split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint;
  FOR i IN 1..n LOOP
    PERFORM shape_one(shape, tenant, gen_random_uuid());
  END LOOP;
  c1 := split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint;
  RETURN round((c1 - c0) / 1000.0 / n, 1);
END $$;
