import type { Knex } from 'knex';

/**
 * A split rule moves parts of each payment an account receives to other accounts of its tenant when the
 * payment is confirmed, each part as a transfer. `split_moves` records what each confirmed payment moved (or
 * why a part could not move): one row per payment and part, so a payment is split once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE split_rules (
      account_id uuid PRIMARY KEY REFERENCES virtual_accounts (id),
      tenant_id uuid NOT NULL REFERENCES tenants (id),
      fee_bearer text NOT NULL CHECK (fee_bearer IN ('account', 'split')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE split_rule_parts (
      account_id uuid NOT NULL REFERENCES split_rules (account_id) ON DELETE CASCADE,
      position int NOT NULL CHECK (position >= 1),
      to_account_id uuid NOT NULL REFERENCES virtual_accounts (id),
      -- A share of the payment in hundredths of a percent, or a fixed amount in kobo.
      basis_points int CHECK (basis_points BETWEEN 1 AND 10000),
      amount bigint CHECK (amount > 0),
      PRIMARY KEY (account_id, position),
      UNIQUE (account_id, to_account_id),
      CHECK ((basis_points IS NULL) <> (amount IS NULL)),
      CHECK (to_account_id <> account_id)
    );
    CREATE TABLE split_moves (
      payment_entry_id uuid NOT NULL,
      position int NOT NULL,
      tenant_id uuid NOT NULL REFERENCES tenants (id),
      from_account_id uuid NOT NULL REFERENCES virtual_accounts (id),
      to_account_id uuid NOT NULL REFERENCES virtual_accounts (id),
      amount bigint NOT NULL CHECK (amount > 0),
      -- The transfer that moved it, or why it did not move.
      transfer_id uuid REFERENCES internal_transfers (id),
      not_moved_reason text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (payment_entry_id, position),
      CHECK ((transfer_id IS NULL) <> (not_moved_reason IS NULL))
    );
    CREATE INDEX split_moves_from_account_idx ON split_moves (from_account_id, created_at);

    -- A split's part is a transfer the service makes itself: no Idempotency-Key (its split_moves row makes it
    -- once), and it names the payment it came from (the provider's transaction id, as payment.received told it).
    ALTER TABLE internal_transfers DROP CONSTRAINT internal_transfers_source_check;
    ALTER TABLE internal_transfers ADD CONSTRAINT internal_transfers_source_check CHECK (source IN ('api', 'dashboard', 'split'));
    ALTER TABLE internal_transfers ALTER COLUMN idempotency_key DROP NOT NULL, ALTER COLUMN request_hash DROP NOT NULL;
    ALTER TABLE internal_transfers ADD COLUMN split_of_payment text;
    ALTER TABLE internal_transfers ADD CONSTRAINT internal_transfers_split_has_no_key
      CHECK ((source = 'split') = (idempotency_key IS NULL) AND (idempotency_key IS NULL) = (request_hash IS NULL)
             AND (source = 'split') = (split_of_payment IS NOT NULL));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE split_moves;
    DROP TABLE split_rule_parts;
    DROP TABLE split_rules;
    DELETE FROM internal_transfers WHERE source = 'split';
    ALTER TABLE internal_transfers DROP CONSTRAINT internal_transfers_split_has_no_key;
    ALTER TABLE internal_transfers DROP COLUMN split_of_payment;
    ALTER TABLE internal_transfers ALTER COLUMN idempotency_key SET NOT NULL, ALTER COLUMN request_hash SET NOT NULL;
    ALTER TABLE internal_transfers DROP CONSTRAINT internal_transfers_source_check;
    ALTER TABLE internal_transfers ADD CONSTRAINT internal_transfers_source_check CHECK (source IN ('api', 'dashboard'));
  `);
}
