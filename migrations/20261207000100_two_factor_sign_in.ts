import type { Knex } from 'knex';

/**
 * Two-factor sign-in for dashboard users. A user's TOTP secret (encrypted like other secrets, the row's
 * id is the user's) is confirmed by a first code; `last_time_step` is the newest time step a code was
 * accepted for, so no code is accepted twice. Recovery codes are kept as hashes, each used once.
 * A session signed in with a password alone waits for the second factor (`awaiting_second_factor`);
 * `code_verified_at` is when a TOTP code was last given in it, which a sensitive action asks to be recent.
 * A tenant may require two-factor sign-in of the roles that move money or administer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE totp_enrolments (
      id uuid PRIMARY KEY REFERENCES dashboard_users(id),
      secret_enc text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      confirmed_at timestamptz,
      last_time_step bigint
    );

    CREATE TABLE totp_recovery_codes (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES dashboard_users(id),
      code_hash bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      used_at timestamptz,
      UNIQUE (user_id, code_hash)
    );

    ALTER TABLE sessions
      ADD COLUMN awaiting_second_factor boolean NOT NULL DEFAULT false,
      ADD COLUMN code_verified_at timestamptz;

    ALTER TABLE tenants ADD COLUMN two_factor_required_at timestamptz;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE tenants DROP COLUMN two_factor_required_at;
    ALTER TABLE sessions DROP COLUMN code_verified_at, DROP COLUMN awaiting_second_factor;
    DROP TABLE totp_recovery_codes;
    DROP TABLE totp_enrolments;
  `);
}
