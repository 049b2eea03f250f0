import type { Knex } from 'knex';

/**
 * The dashboard: user roles and disabling, idle sessions, one append-only audit log of operator
 * actions (with the actions audited before it copied in), each settlement's status history (kept by
 * a trigger, so every writer of a status records it), and the indexes its reads need.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- Users made before roles existed (and by the CLI) are the tenant's admins.
    ALTER TABLE dashboard_users
      ADD COLUMN role text NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'operator', 'viewer')),
      ADD COLUMN disabled_at timestamptz;
    CREATE INDEX dashboard_users_tenant_idx ON dashboard_users (tenant_id, id);

    ALTER TABLE sessions ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now();
    CREATE INDEX sessions_live_user_idx ON sessions (user_id) WHERE revoked_at IS NULL;

    CREATE TABLE audit_log (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      user_id uuid REFERENCES dashboard_users(id),
      actor text NOT NULL,
      action text NOT NULL CHECK (action ~ '^[a-z_]+\\.[a-z_]+$'),
      target_type text NOT NULL,
      target_id text,
      detail jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX audit_log_tenant_idx ON audit_log (tenant_id, id);
    CREATE INDEX audit_log_target_idx ON audit_log (tenant_id, target_type, target_id, id);

    CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP;
    END;
    $$;
    CREATE TRIGGER audit_log_append_only_row BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
    CREATE TRIGGER audit_log_append_only_truncate BEFORE TRUNCATE ON audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

    INSERT INTO audit_log (id, tenant_id, user_id, actor, action, target_type, target_id, detail, created_at)
    SELECT a.id, a.tenant_id, a.user_id, u.email,
           CASE a.action WHEN 'kyc_approved' THEN 'kyc.approved' WHEN 'kyc_rejected' THEN 'kyc.rejected'
                         WHEN 'suspended' THEN 'customer.suspended' ELSE 'customer.reactivated' END,
           'customer', a.customer_id::text, a.detail, a.created_at
    FROM customer_audit a JOIN dashboard_users u ON u.id = a.user_id
    WHERE a.action <> 'kyc_submitted';

    INSERT INTO audit_log (id, tenant_id, user_id, actor, action, target_type, target_id, detail, created_at)
    SELECT gen_random_uuid(), e.tenant_id, e.assigned_by, u.email, 'misdirected.assigned', 'misdirected_payment', e.id::text,
           jsonb_build_object('accountRef', va.account_ref, 'entryId', e.assigned_entry_id), e.assigned_at
    FROM inbound_events e
    JOIN dashboard_users u ON u.id = e.assigned_by
    JOIN virtual_accounts va ON va.id = e.assigned_account_id
    WHERE e.category = 'misdirected' AND e.assigned_at IS NOT NULL;

    CREATE TABLE settlement_status_history (
      id bigserial PRIMARY KEY,
      settlement_id uuid NOT NULL REFERENCES settlements(id),
      status text NOT NULL,
      changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX settlement_status_history_settlement_idx ON settlement_status_history (settlement_id, id);

    INSERT INTO settlement_status_history (settlement_id, status, changed_at)
    SELECT id, 'pending', created_at FROM settlements;
    INSERT INTO settlement_status_history (settlement_id, status, changed_at)
    SELECT id, status, updated_at FROM settlements WHERE status <> 'pending';

    CREATE FUNCTION settlements_record_status() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO settlement_status_history (settlement_id, status) VALUES (NEW.id, NEW.status);
      END IF;
      RETURN NULL;
    END;
    $$;
    CREATE TRIGGER settlements_record_status_row AFTER INSERT OR UPDATE OF status ON settlements
      FOR EACH ROW EXECUTE FUNCTION settlements_record_status();

    -- The settlements list filters by status; dead letters are "handled" once replayed.
    CREATE INDEX settlements_tenant_status_idx ON settlements (tenant_id, status, id);
    CREATE INDEX webhook_deliveries_replay_of_idx ON webhook_deliveries (replay_of) WHERE replay_of IS NOT NULL;
    CREATE INDEX webhook_deliveries_tenant_idx ON webhook_deliveries (tenant_id, id);

    -- Searching customers (and their accounts) by any part of the name.
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX customers_name_trgm_idx ON customers USING gin (lower(name) gin_trgm_ops);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX customers_name_trgm_idx;
    DROP INDEX webhook_deliveries_tenant_idx;
    DROP INDEX webhook_deliveries_replay_of_idx;
    DROP INDEX settlements_tenant_status_idx;
    DROP TRIGGER settlements_record_status_row ON settlements;
    DROP FUNCTION settlements_record_status();
    DROP TABLE settlement_status_history;
    DROP TABLE audit_log;
    DROP FUNCTION audit_log_append_only();
    DROP INDEX sessions_live_user_idx;
    ALTER TABLE sessions DROP COLUMN last_seen_at;
    DROP INDEX dashboard_users_tenant_idx;
    ALTER TABLE dashboard_users DROP COLUMN disabled_at, DROP COLUMN role;
  `);
}
