import type { Knex } from 'knex';

/**
 * API keys get a name, scopes, the addresses they may be used from, an expiry, and a rotation's replaced
 * secret with the time it stops working. Keys made before have every scope (`*`), so they keep working
 * as they did. The last time a key was used lives in a table of its own: api_keys' trigger announces
 * every change to it (each API process then forgets the keys it holds), and a use is not a change.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE api_keys
      ADD COLUMN name text,
      ADD COLUMN scopes text[] NOT NULL DEFAULT '{*}',
      ADD COLUMN allowed_sources text[],
      ADD COLUMN expires_at timestamptz,
      ADD COLUMN replaced_key_hash bytea UNIQUE,
      ADD COLUMN replaced_key_valid_until timestamptz,
      ADD CONSTRAINT api_keys_scopes_present CHECK (cardinality(scopes) > 0),
      ADD CONSTRAINT api_keys_allowed_sources_present CHECK (allowed_sources IS NULL OR cardinality(allowed_sources) > 0),
      ADD CONSTRAINT api_keys_replaced_key_valid_until CHECK ((replaced_key_hash IS NULL) = (replaced_key_valid_until IS NULL))`);
  await knex.raw(`UPDATE api_keys SET name = 'Key ' || prefix`);
  // Every key from now on states its name and scopes.
  await knex.raw('ALTER TABLE api_keys ALTER COLUMN name SET NOT NULL, ALTER COLUMN scopes DROP DEFAULT');
  await knex.raw(`
    CREATE TABLE api_key_uses (
      api_key_id uuid PRIMARY KEY REFERENCES api_keys(id),
      last_used_at timestamptz NOT NULL
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE api_key_uses');
  await knex.raw(`
    ALTER TABLE api_keys
      DROP COLUMN replaced_key_valid_until,
      DROP COLUMN replaced_key_hash,
      DROP COLUMN expires_at,
      DROP COLUMN allowed_sources,
      DROP COLUMN scopes,
      DROP COLUMN name`);
}
