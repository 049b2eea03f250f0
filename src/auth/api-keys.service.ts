import { createAuditLog, type AuditActor } from '../audit/audit-log';
import type { Db } from '../db';
import { NotFoundError } from '../errors';
import { isUuid, uuidv7 } from '../ids';
import type { ApiKeyCache } from './api-key-cache';
import { generateApiKey } from './api-keys';
import { createAuthRepo, type ApiKeyRecord } from './auth.repo';

/** An admin's view of the tenant's API keys: only prefixes are ever shown again, the key itself once. */
export function createApiKeysService(deps: { db: Db; apiKeyCache: ApiKeyCache }) {
  const { db, apiKeyCache } = deps;
  const repo = createAuthRepo(db);

  return {
    list(tenantId: string): Promise<ApiKeyRecord[]> {
      return repo.listApiKeys(tenantId);
    },

    async create(actor: AuditActor): Promise<{ record: ApiKeyRecord; key: string }> {
      const apiKey = generateApiKey();
      const id = uuidv7();
      await db.transaction(async (trx) => {
        await createAuthRepo(trx).insertApiKey({ id, tenantId: actor.tenantId, prefix: apiKey.prefix, keyHash: apiKey.hash });
        await createAuditLog(trx).record(actor, 'api_key.created', { type: 'api_key', id }, { prefix: apiKey.prefix });
      });
      return { record: (await repo.findApiKey(actor.tenantId, id))!, key: apiKey.key };
    },

    /** Revoking a revoked key changes nothing and records nothing. */
    async revoke(actor: AuditActor, id: string): Promise<ApiKeyRecord> {
      const key = isUuid(id) ? await repo.findApiKey(actor.tenantId, id.toLowerCase()) : undefined;
      if (!key) throw new NotFoundError('api key not found');
      if (key.revoked_at) return key;
      await db.transaction(async (trx) => {
        await createAuthRepo(trx).revokeApiKey(key.id);
        await createAuditLog(trx).record(actor, 'api_key.revoked', { type: 'api_key', id: key.id }, { prefix: key.prefix });
      });
      // Other processes forget it when the change's notification reaches them; this one at once.
      apiKeyCache.forget();
      return (await repo.findApiKey(actor.tenantId, key.id))!;
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
