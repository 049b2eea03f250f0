import type { DbOrTrx } from '../db';
import { subscribedEndpointSql } from '../events/tenant-events';

export interface EndpointRecord {
  id: string;
  tenantId: string;
  url: string;
  description: string;
  /** null: every event type. */
  eventTypes: string[] | null;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
  lastError: string | null;
  lastSuccessAt: Date | null;
  deletedAt: Date | null;
  createdAt: Date;
}

interface EndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  description: string;
  event_types: string[] | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  last_error: string | null;
  last_success_at: Date | null;
  deleted_at: Date | null;
  created_at: Date;
}

function toEndpoint(row: EndpointRow): EndpointRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    secretEnc: row.secret_enc,
    previousSecretEnc: row.previous_secret_enc,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    lastError: row.last_error,
    lastSuccessAt: row.last_success_at,
    deletedAt: row.deleted_at,
    createdAt: row.created_at,
  };
}

export interface EndpointHealth {
  /** Of the endpoint's finished deliveries in the last 7 days, the share that succeeded; null with none. */
  successRate: number | null;
  delivered: number;
  failed: number;
}

export interface NewEndpoint {
  id: string;
  tenantId: string;
  url: string;
  description: string;
  eventTypes: string[] | null;
  secretEnc: string;
}

export interface EndpointChanges {
  url?: string;
  description?: string;
  eventTypes?: string[] | null;
  enabled?: boolean;
}

export function createEndpointsRepo(db: DbOrTrx) {
  const live = () => db('webhook_endpoints').whereNull('deleted_at');
  return {
    async insert(endpoint: NewEndpoint): Promise<EndpointRecord> {
      const [row] = await db('webhook_endpoints')
        .insert({
          id: endpoint.id,
          tenant_id: endpoint.tenantId,
          url: endpoint.url,
          description: endpoint.description,
          event_types: endpoint.eventTypes,
          secret_enc: endpoint.secretEnc,
        })
        .returning('*');
      return toEndpoint(row as EndpointRow);
    },

    async find(tenantId: string, id: string): Promise<EndpointRecord | undefined> {
      const row: EndpointRow | undefined = await live().where({ tenant_id: tenantId, id }).first();
      return row ? toEndpoint(row) : undefined;
    },

    /** Deleted ones too: a delivery's endpoint, to learn it is gone. */
    async findById(id: string): Promise<EndpointRecord | undefined> {
      const row: EndpointRow | undefined = await db('webhook_endpoints').where({ id }).first();
      return row ? toEndpoint(row) : undefined;
    },

    async lock(id: string): Promise<EndpointRecord | undefined> {
      const row: EndpointRow | undefined = await db('webhook_endpoints').where({ id }).forUpdate().first();
      return row ? toEndpoint(row) : undefined;
    },

    async list(tenantId: string): Promise<EndpointRecord[]> {
      const rows: EndpointRow[] = await live().where({ tenant_id: tenantId }).orderBy('id');
      return rows.map(toEndpoint);
    },

    /** The tenant's enabled endpoints that subscribe to `type` (by name, or to every type). */
    async subscribers(tenantId: string, type: string): Promise<EndpointRecord[]> {
      const rows: EndpointRow[] = await db('webhook_endpoints as w')
        .whereRaw(subscribedEndpointSql('w', '?', '?'), [tenantId, type])
        .orderBy('w.id')
        .select('w.*');
      return rows.map(toEndpoint);
    },

    async update(tenantId: string, id: string, changes: EndpointChanges): Promise<void> {
      const row: Record<string, unknown> = { updated_at: db.fn.now() };
      if (changes.url !== undefined) row.url = changes.url;
      if (changes.description !== undefined) row.description = changes.description;
      if (changes.eventTypes !== undefined) row.event_types = changes.eventTypes;
      if (changes.enabled !== undefined) {
        row.enabled = changes.enabled;
        // Re-enabling starts the endpoint's health afresh.
        if (changes.enabled) Object.assign(row, { disabled_reason: null, failing_since: null });
      }
      await live().where({ tenant_id: tenantId, id }).update(row);
    },

    async rotateSecret(id: string, secretEnc: string, previousSecretEnc: string, previousExpiresAt: Date): Promise<void> {
      await db('webhook_endpoints').where({ id }).update({
        secret_enc: secretEnc,
        previous_secret_enc: previousSecretEnc,
        previous_secret_expires_at: previousExpiresAt,
        updated_at: db.fn.now(),
      });
    },

    async markDeleted(id: string): Promise<void> {
      await db('webhook_endpoints').where({ id }).update({ deleted_at: db.fn.now(), enabled: false, updated_at: db.fn.now() });
    },

    async recordSuccess(id: string, at: Date): Promise<void> {
      await db('webhook_endpoints').where({ id }).update({ failing_since: null, last_error: null, last_success_at: at });
    },

    /** Returns the endpoint as it now is: failing since its first failure after its last success. */
    async recordFailure(id: string, at: Date, error: string): Promise<EndpointRecord | undefined> {
      const [row] = await db('webhook_endpoints')
        .where({ id })
        .update({ failing_since: db.raw('coalesce(failing_since, ?)', [at]), last_error: error })
        .returning('*');
      return row ? toEndpoint(row as EndpointRow) : undefined;
    },

    /** False when it was already disabled (another attempt got there first). */
    async disable(id: string, reason: string): Promise<boolean> {
      const changed = await db('webhook_endpoints')
        .where({ id, enabled: true })
        .update({ enabled: false, disabled_reason: reason, updated_at: db.fn.now() });
      return changed > 0;
    },

    async health(id: string): Promise<EndpointHealth> {
      const row: { delivered: string; failed: string } = await db('webhook_deliveries')
        .where({ endpoint_id: id })
        .where('created_at', '>', db.raw("now() - interval '7 days'"))
        .select(
          db.raw("count(*) FILTER (WHERE status = 'succeeded') AS delivered"),
          db.raw("count(*) FILTER (WHERE status = 'dead_letter') AS failed"),
        )
        .first();
      const delivered = Number(row.delivered);
      const failed = Number(row.failed);
      return { delivered, failed, successRate: delivered + failed === 0 ? null : delivered / (delivered + failed) };
    },
  };
}
