import type { Knex } from 'knex';

/**
 * API processes keep the tenant of a recently used API key in memory (one round trip less per request)
 * only while they listen on this channel: any change to a key or a tenant's name, whoever makes it (the
 * dashboard, the CLI, SQL by hand), notifies them when it commits and they forget every key they hold.
 * Statement-level, so revoking a thousand keys is one notification; TRUNCATE included.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION notify_api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('api_keys_changed', '');
      RETURN NULL;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE OR TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_api_keys_changed()',
  );
  await knex.raw(
    'CREATE TRIGGER tenants_changed_for_api_keys AFTER UPDATE OF name OR DELETE OR TRUNCATE ON tenants FOR EACH STATEMENT EXECUTE FUNCTION notify_api_keys_changed()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER tenants_changed_for_api_keys ON tenants');
  await knex.raw('DROP TRIGGER api_keys_changed ON api_keys');
  await knex.raw('DROP FUNCTION notify_api_keys_changed()');
}
