import type { Knex } from 'knex';

/**
 * Subscribable events. `tenant_events` is the outbox of events: a row is written in the transaction of the
 * change it reports, and the event dispatcher turns each undispatched row into one delivery per subscribed
 * endpoint. `webhook_endpoints` are the tenant's own receivers, each with its types, its secrets (the
 * previous one still signing until `previous_secret_expires_at`) and its health. A delivery now belongs to
 * an account's callback (account_id) or to an endpoint (endpoint_id); deleting an endpoint cancels its
 * pending deliveries.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE tenant_events (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      type text NOT NULL,
      subject text NOT NULL,
      sequence integer NOT NULL CHECK (sequence > 0),
      data json NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      dispatched_at timestamptz
    );
    CREATE INDEX tenant_events_tenant_time_idx ON tenant_events (tenant_id, created_at, id);
    CREATE INDEX tenant_events_subject_idx ON tenant_events (tenant_id, subject, sequence);
    CREATE INDEX tenant_events_undispatched_idx ON tenant_events (created_at) WHERE dispatched_at IS NULL;

    CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      url text NOT NULL,
      description text NOT NULL DEFAULT '',
      event_types text[],
      secret_enc text NOT NULL,
      previous_secret_enc text,
      previous_secret_expires_at timestamptz,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      failing_since timestamptz,
      last_error text,
      last_success_at timestamptz,
      recovered_until timestamptz,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_endpoints_tenant_idx ON webhook_endpoints (tenant_id, id) WHERE deleted_at IS NULL;

    ALTER TABLE webhook_deliveries
      ALTER COLUMN account_id DROP NOT NULL,
      ADD COLUMN endpoint_id uuid REFERENCES webhook_endpoints(id),
      ADD COLUMN tenant_event_id uuid REFERENCES tenant_events(id),
      DROP CONSTRAINT webhook_deliveries_status_check,
      ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'retrying', 'succeeded', 'dead_letter', 'cancelled')),
      ADD CONSTRAINT webhook_deliveries_has_target CHECK (account_id IS NOT NULL OR endpoint_id IS NOT NULL);
    CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id) WHERE endpoint_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id IS NOT NULL);
    DELETE FROM webhook_deliveries WHERE endpoint_id IS NOT NULL;
    ALTER TABLE webhook_deliveries
      DROP CONSTRAINT webhook_deliveries_has_target,
      DROP CONSTRAINT webhook_deliveries_status_check,
      ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'retrying', 'succeeded', 'dead_letter')),
      DROP COLUMN tenant_event_id,
      DROP COLUMN endpoint_id,
      ALTER COLUMN account_id SET NOT NULL;
    DROP TABLE webhook_endpoints, tenant_events;
  `);
}
