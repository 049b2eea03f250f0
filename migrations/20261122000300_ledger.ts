import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ledger_entries (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      seq bigint NOT NULL CHECK (seq > 0),
      direction text NOT NULL CHECK (direction IN ('credit', 'debit')),
      kind text NOT NULL CHECK (kind IN ('payment', 'settlement', 'reversal')),
      amount bigint NOT NULL CHECK (amount > 0),
      fee bigint NOT NULL DEFAULT 0 CHECK (fee >= 0),
      currency text NOT NULL DEFAULT 'NGN' CHECK (currency = 'NGN'),
      status text NOT NULL CHECK (status IN ('provisional', 'confirmed', 'reversed')),
      narration text NOT NULL DEFAULT '',
      provider_txn_ref text,
      transaction_group_id uuid NOT NULL,
      reverses_entry_id uuid REFERENCES ledger_entries(id),
      balance_after bigint NOT NULL,
      credits_to_date bigint NOT NULL CHECK (credits_to_date >= 0),
      debits_to_date bigint NOT NULL CHECK (debits_to_date >= 0),
      created_at timestamptz NOT NULL,
      status_changed_at timestamptz,
      CONSTRAINT ledger_entries_account_seq_key UNIQUE (account_id, seq),
      CONSTRAINT balance_after_is_credits_minus_debits CHECK (balance_after = credits_to_date - debits_to_date),
      CONSTRAINT reversal_references_original CHECK ((kind = 'reversal') = (reverses_entry_id IS NOT NULL))
    );
    CREATE INDEX ledger_entries_account_created_idx ON ledger_entries (account_id, created_at);
    CREATE INDEX ledger_entries_provider_txn_ref_idx ON ledger_entries (provider_txn_ref);
    CREATE INDEX ledger_entries_group_idx ON ledger_entries (transaction_group_id);
    -- An entry is reversed at most once, whoever tries.
    CREATE UNIQUE INDEX ledger_entries_one_reversal_idx ON ledger_entries (reverses_entry_id) WHERE reverses_entry_id IS NOT NULL;
    -- A provider transaction is credited at most once, even if it arrives under two request ids.
    CREATE UNIQUE INDEX ledger_entries_one_payment_per_txn_idx ON ledger_entries (provider_txn_ref) WHERE kind = 'payment';

    -- Append-only: the only change allowed is a status move (provisional -> confirmed | reversed,
    -- and confirmed -> reversed for a settlement debit the provider refunded after success).
    CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'UPDATE' THEN
        RAISE EXCEPTION 'ledger_entries is append-only: % refused', TG_OP;
      END IF;
      IF (NEW.id, NEW.tenant_id, NEW.account_id, NEW.seq, NEW.direction, NEW.kind, NEW.amount, NEW.fee, NEW.currency,
          NEW.narration, NEW.provider_txn_ref, NEW.transaction_group_id, NEW.reverses_entry_id, NEW.balance_after,
          NEW.credits_to_date, NEW.debits_to_date, NEW.created_at)
         IS DISTINCT FROM
         (OLD.id, OLD.tenant_id, OLD.account_id, OLD.seq, OLD.direction, OLD.kind, OLD.amount, OLD.fee, OLD.currency,
          OLD.narration, OLD.provider_txn_ref, OLD.transaction_group_id, OLD.reverses_entry_id, OLD.balance_after,
          OLD.credits_to_date, OLD.debits_to_date, OLD.created_at) THEN
        RAISE EXCEPTION 'ledger entry % is immutable except for its status', OLD.id;
      END IF;
      IF NOT ((OLD.status = 'provisional' AND NEW.status IN ('confirmed', 'reversed'))
              OR (OLD.status = 'confirmed' AND NEW.status = 'reversed' AND OLD.kind = 'settlement')) THEN
        RAISE EXCEPTION 'ledger entry % cannot move from % to %', OLD.id, OLD.status, NEW.status;
      END IF;
      RETURN NEW;
    END;
    $$;
    CREATE TRIGGER ledger_entries_append_only_row BEFORE UPDATE OR DELETE ON ledger_entries
      FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();
    CREATE TRIGGER ledger_entries_append_only_truncate BEFORE TRUNCATE ON ledger_entries
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_append_only();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE ledger_entries;
    DROP FUNCTION ledger_entries_append_only();
  `);
}
