import type { Knex } from 'knex';

/**
 * Money set aside on an account becomes one primitive, the reservation: an amount of a kind (declared in
 * src/ledger/reservation-kinds.ts, so no CHECK names them here), with its reason, what it is kept for (its owner:
 * for a held credit, the credit's entry) and an optional expiry; later posted (it becomes the transaction it was
 * kept for), released, or expired, each change a row of its own. A KYC hold becomes a `kyc_limit` reservation
 * (its limit the reason), a dynamic account's mismatch hold a `payment_mismatch` one; a hold's id becomes its
 * reservation's. A release as 'returned' and the return naming the settlement debit that paid it become one
 * change: the reservation posted by that debit.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DO $$
    BEGIN
      IF EXISTS (SELECT 1 FROM ledger_hold_releases x
                  WHERE x.reason = 'returned'
                    AND NOT EXISTS (SELECT 1 FROM ledger_hold_returns r
                                     WHERE r.entry_id = x.entry_id AND r.amount = x.amount AND r.user_id IS NOT DISTINCT FROM x.user_id))
         OR EXISTS (SELECT 1 FROM ledger_hold_returns r
                     WHERE (SELECT count(*) FROM ledger_hold_releases x WHERE x.entry_id = r.entry_id AND x.reason = 'returned') <> 1) THEN
        RAISE EXCEPTION 'a hold released as returned does not match its return: run ledger:verify and repair it before migrating';
      END IF;
    END $$;

    CREATE TABLE ledger_reservations (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      kind text NOT NULL,
      reason text NOT NULL,
      -- What the reservation is kept for; its kind says what the id names (a held credit's: the credit's entry).
      owner_id uuid NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      posted bigint NOT NULL DEFAULT 0 CHECK (posted >= 0),
      released bigint NOT NULL DEFAULT 0 CHECK (released >= 0),
      open_amount bigint GENERATED ALWAYS AS (amount - posted - released) STORED,
      -- A KYC limit's tier and amount (a mismatch's: the expected amount); null for a kind with no limit behind it.
      tier smallint CHECK (tier IN (1, 2, 3)),
      limit_amount bigint CHECK (limit_amount >= 0),
      expires_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT reservation_settled_within_amount CHECK (posted + released <= amount),
      CONSTRAINT reservation_owner_key UNIQUE (owner_id, kind)
    );
    CREATE INDEX ledger_reservations_open_idx ON ledger_reservations (tenant_id, created_at) WHERE open_amount > 0;
    CREATE INDEX ledger_reservations_account_idx ON ledger_reservations (account_id, created_at);
    CREATE INDEX ledger_reservations_mismatch_open_idx ON ledger_reservations (created_at) WHERE kind = 'payment_mismatch' AND open_amount > 0;
    CREATE INDEX ledger_reservations_expiring_idx ON ledger_reservations (expires_at) WHERE expires_at IS NOT NULL AND open_amount > 0;

    -- Each change of a reservation: posted by an entry (the transaction it was kept for; the entry is written after
    -- this row in that transaction, hence the deferred reference), released for a reason, or expired.
    CREATE TABLE ledger_reservation_changes (
      id uuid PRIMARY KEY,
      reservation_id uuid NOT NULL REFERENCES ledger_reservations(id),
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      outcome text NOT NULL CHECK (outcome IN ('posted', 'released', 'expired')),
      amount bigint NOT NULL CHECK (amount > 0),
      reason text CHECK (reason IN ('tier_raised', 'operator', 'credit_reversed')),
      entry_id uuid UNIQUE REFERENCES ledger_entries(id) DEFERRABLE INITIALLY DEFERRED,
      user_id uuid REFERENCES dashboard_users(id),
      note text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT reservation_change_posted_by_entry CHECK ((outcome = 'posted') = (entry_id IS NOT NULL)),
      CONSTRAINT reservation_change_released_with_reason CHECK ((outcome = 'released') = (reason IS NOT NULL))
    );
    CREATE INDEX ledger_reservation_changes_reservation_idx ON ledger_reservation_changes (reservation_id);

    INSERT INTO ledger_reservations (id, tenant_id, account_id, kind, reason, owner_id, amount, posted, released, tier, limit_amount, created_at)
    SELECT h.entry_id, h.tenant_id, h.account_id,
           CASE WHEN h.limit_kind = 'amount_mismatch' THEN 'payment_mismatch' ELSE 'kyc_limit' END, h.limit_kind, h.entry_id, h.amount,
           coalesce(x.returned, 0), h.released - coalesce(x.returned, 0), h.tier, h.limit_amount, h.created_at
      FROM ledger_holds h
      LEFT JOIN (SELECT entry_id, sum(amount) AS returned FROM ledger_hold_releases WHERE reason = 'returned' GROUP BY entry_id) x
        ON x.entry_id = h.entry_id;

    INSERT INTO ledger_reservation_changes (id, reservation_id, tenant_id, account_id, outcome, amount, reason, entry_id, user_id, note, created_at)
    SELECT x.id, x.entry_id, x.tenant_id, x.account_id, CASE WHEN x.reason = 'returned' THEN 'posted' ELSE 'released' END, x.amount,
           nullif(x.reason, 'returned'), r.debit_entry_id, x.user_id, x.note, x.created_at
      FROM ledger_hold_releases x
      LEFT JOIN ledger_hold_returns r ON r.entry_id = x.entry_id AND x.reason = 'returned';

    DROP TABLE ledger_hold_returns;
    DROP TABLE ledger_hold_releases;
    DROP TABLE ledger_holds;
  `);
}

/**
 * Back to holds, their releases and returns. Only what they can say goes back: a reservation that is not a held
 * credit's, that expires, or that expired, has no hold to become, so rolling back refuses while one exists.
 */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DO $$
    BEGIN
      IF EXISTS (SELECT 1 FROM ledger_reservations
                  WHERE kind NOT IN ('kyc_limit', 'payment_mismatch') OR expires_at IS NOT NULL OR tier IS NULL OR limit_amount IS NULL)
         OR EXISTS (SELECT 1 FROM ledger_reservation_changes WHERE outcome = 'expired')
         OR EXISTS (SELECT 1 FROM ledger_reservations r LEFT JOIN ledger_entries e ON e.id = r.owner_id WHERE e.id IS NULL)
         OR EXISTS (SELECT owner_id FROM ledger_reservations GROUP BY owner_id HAVING count(*) > 1) THEN
        RAISE EXCEPTION 'reservations that are no held credit (another kind, an expiry, one expired) have no hold to become';
      END IF;
    END $$;

    CREATE TABLE ledger_holds (
      entry_id uuid PRIMARY KEY REFERENCES ledger_entries(id),
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      amount bigint NOT NULL CHECK (amount > 0),
      released bigint NOT NULL DEFAULT 0 CHECK (released >= 0),
      tier smallint NOT NULL CHECK (tier IN (1, 2, 3)),
      limit_kind text NOT NULL,
      limit_amount bigint NOT NULL CHECK (limit_amount >= 0),
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT hold_released_within_amount CHECK (released <= amount),
      CONSTRAINT ledger_holds_limit_kind_check CHECK (limit_kind IN ('single_credit', 'balance', 'amount_mismatch'))
    );
    CREATE INDEX ledger_holds_open_idx ON ledger_holds (tenant_id, created_at) WHERE released < amount;
    CREATE INDEX ledger_holds_account_idx ON ledger_holds (account_id, created_at);
    CREATE INDEX ledger_holds_mismatch_open_idx ON ledger_holds (created_at) WHERE limit_kind = 'amount_mismatch' AND released < amount;

    CREATE TABLE ledger_hold_releases (
      id uuid PRIMARY KEY,
      entry_id uuid NOT NULL REFERENCES ledger_holds(entry_id),
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      amount bigint NOT NULL CHECK (amount > 0),
      reason text NOT NULL,
      user_id uuid REFERENCES dashboard_users(id),
      note text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT ledger_hold_releases_reason_check CHECK (reason IN ('tier_raised', 'operator', 'credit_reversed', 'returned'))
    );
    CREATE INDEX ledger_hold_releases_entry_idx ON ledger_hold_releases (entry_id);

    CREATE TABLE ledger_hold_returns (
      entry_id uuid PRIMARY KEY REFERENCES ledger_holds(entry_id),
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      debit_entry_id uuid NOT NULL UNIQUE REFERENCES ledger_entries(id) DEFERRABLE INITIALLY DEFERRED,
      amount bigint NOT NULL CHECK (amount > 0),
      user_id uuid REFERENCES dashboard_users(id),
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );

    INSERT INTO ledger_holds (entry_id, tenant_id, account_id, amount, released, tier, limit_kind, limit_amount, created_at)
    SELECT owner_id, tenant_id, account_id, amount, posted + released, tier, reason, limit_amount, created_at FROM ledger_reservations;

    INSERT INTO ledger_hold_releases (id, entry_id, tenant_id, account_id, amount, reason, user_id, note, created_at)
    SELECT c.id, r.owner_id, c.tenant_id, c.account_id, c.amount, coalesce(c.reason, 'returned'), c.user_id, c.note, c.created_at
      FROM ledger_reservation_changes c JOIN ledger_reservations r ON r.id = c.reservation_id;

    INSERT INTO ledger_hold_returns (entry_id, tenant_id, account_id, debit_entry_id, amount, user_id, created_at)
    SELECT r.owner_id, c.tenant_id, c.account_id, c.entry_id, c.amount, c.user_id, c.created_at
      FROM ledger_reservation_changes c JOIN ledger_reservations r ON r.id = c.reservation_id
     WHERE c.outcome = 'posted';

    DROP TABLE ledger_reservation_changes;
    DROP TABLE ledger_reservations;
  `);
}
