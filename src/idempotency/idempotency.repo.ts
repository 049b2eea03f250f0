import type { DbOrTrx } from '../db';

type IdempotencyScope = 'account' | 'settlement' | 'transfer';

export interface IdempotencyRecord {
  tenant_id: string;
  scope: IdempotencyScope;
  key: string;
  request_hash: string;
  resource_ref: string;
  resource_id: string | null;
}

export function createIdempotencyRepo(db: DbOrTrx) {
  return {
    /** Claims the key for this request, or returns whoever claimed it first (the unique key decides, not a read). */
    async claim(record: Omit<IdempotencyRecord, 'resource_id'>): Promise<{ claimed: boolean; record: IdempotencyRecord }> {
      const [inserted]: IdempotencyRecord[] = await db('idempotency_keys')
        .insert(record)
        .onConflict(['tenant_id', 'scope', 'key'])
        .ignore()
        .returning('*');
      if (inserted) return { claimed: true, record: inserted };
      const existing: IdempotencyRecord = await db('idempotency_keys')
        .where({ tenant_id: record.tenant_id, scope: record.scope, key: record.key })
        .first();
      return { claimed: false, record: existing };
    },

    async find(tenantId: string, scope: IdempotencyScope, key: string): Promise<IdempotencyRecord | undefined> {
      return db('idempotency_keys').where({ tenant_id: tenantId, scope, key }).first();
    },

    async attachResource(tenantId: string, scope: IdempotencyScope, key: string, resourceId: string): Promise<void> {
      await db('idempotency_keys').where({ tenant_id: tenantId, scope, key }).update({ resource_id: resourceId });
    },
  };
}
