import type { Knex } from 'knex';

/**
 * A dashboard user's email is unique within its tenant, not across tenants: one tenant can no longer
 * learn from a refused user that another tenant has that email, nor take the address first.
 *
 * Password reset tokens an admin issues: only the token's hash is kept; a token is used once, before
 * it expires.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE dashboard_users DROP CONSTRAINT dashboard_users_email_key;
    ALTER TABLE dashboard_users ADD CONSTRAINT dashboard_users_tenant_email_key UNIQUE (tenant_id, email);
    CREATE INDEX dashboard_users_email_idx ON dashboard_users (email);

    CREATE TABLE password_reset_tokens (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES dashboard_users(id),
      token_hash bytea NOT NULL UNIQUE,
      issued_by uuid NOT NULL REFERENCES dashboard_users(id),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    );
    CREATE INDEX password_reset_tokens_user_idx ON password_reset_tokens (user_id) WHERE used_at IS NULL;
  `);
}

/** Rolling back fails while two tenants share an email, rather than drop either user. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE password_reset_tokens;
    DROP INDEX dashboard_users_email_idx;
    ALTER TABLE dashboard_users DROP CONSTRAINT dashboard_users_tenant_email_key;
    ALTER TABLE dashboard_users ADD CONSTRAINT dashboard_users_email_key UNIQUE (email);
  `);
}
