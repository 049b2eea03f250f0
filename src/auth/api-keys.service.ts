import { createAuditLog, type AuditActor } from '../audit/audit-log';
import type { Db } from '../db';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { isUuid, uuidv7 } from '../ids';
import type { ApiKeyCache } from './api-key-cache';
import { generateApiKey } from './api-keys';
import { createAuthRepo, type ApiKeyRecord } from './auth.repo';
import { DEFAULT_ROTATION_OVERLAP_MS, MAX_ROTATION_OVERLAP_MS } from './tenant-admin.schemas';

export interface ApiKeyOptions {
  name: string;
  scopes: string[];
  allowedSources?: string[] | undefined;
  expiresAt?: Date | undefined;
}

/** An admin's view of the tenant's API keys: only prefixes are ever shown again, a secret once. */
export function createApiKeysService(deps: { db: Db; apiKeyCache: ApiKeyCache; now?: () => number }) {
  const { db, apiKeyCache, now = Date.now } = deps;
  const repo = createAuthRepo(db);

  async function tenantKey(actor: AuditActor, id: string): Promise<ApiKeyRecord> {
    const key = isUuid(id) ? await repo.findApiKey(actor.tenantId, id.toLowerCase()) : undefined;
    if (!key) throw new NotFoundError('api key not found');
    return key;
  }

  return {
    list(tenantId: string): Promise<ApiKeyRecord[]> {
      return repo.listApiKeys(tenantId);
    },

    async create(actor: AuditActor, options: ApiKeyOptions): Promise<{ record: ApiKeyRecord; key: string }> {
      if (options.expiresAt && options.expiresAt.getTime() <= now()) throw new ValidationError('expiresAt must be in the future');
      const apiKey = generateApiKey();
      const id = uuidv7();
      const settings = {
        name: options.name,
        scopes: options.scopes,
        allowedSources: options.allowedSources ?? null,
        expiresAt: options.expiresAt ?? null,
      };
      await db.transaction(async (trx) => {
        await createAuthRepo(trx).insertApiKey({ id, tenantId: actor.tenantId, prefix: apiKey.prefix, keyHash: apiKey.hash, ...settings });
        await createAuditLog(trx).record(actor, 'api_key.created', { type: 'api_key', id }, { prefix: apiKey.prefix, ...settings });
      });
      return { record: (await repo.findApiKey(actor.tenantId, id))!, key: apiKey.key };
    },

    /**
     * A new secret for the key, shown once; the one it had keeps working until `replacedSecretValidUntil`
     * (now to 7 days ahead, 24 hours by default), beside the new one. A secret an earlier rotation
     * replaced stops at once: one key has at most two working secrets.
     */
    async rotate(actor: AuditActor, id: string, replacedSecretValidUntil?: Date): Promise<{ record: ApiKeyRecord; key: string }> {
      const key = await tenantKey(actor, id);
      if (key.revoked_at) throw new ConflictError('a revoked api key cannot be rotated');
      const at = now();
      const until = replacedSecretValidUntil ?? new Date(at + DEFAULT_ROTATION_OVERLAP_MS);
      // A second of slack: "now" as the client read it may be a moment behind ours.
      if (until.getTime() < at - 1_000 || until.getTime() > at + MAX_ROTATION_OVERLAP_MS)
        throw new ValidationError('replacedSecretValidUntil must be between now and 7 days from now');
      const apiKey = generateApiKey();
      await db.transaction(async (trx) => {
        await createAuthRepo(trx).rotateApiKey(key.id, { keyHash: apiKey.hash, prefix: apiKey.prefix, replacedValidUntil: until });
        await createAuditLog(trx).record(
          actor,
          'api_key.rotated',
          { type: 'api_key', id: key.id },
          { prefix: apiKey.prefix, replacedPrefix: key.prefix, replacedSecretValidUntil: until.toISOString() },
        );
      });
      apiKeyCache.forget();
      return { record: (await repo.findApiKey(actor.tenantId, key.id))!, key: apiKey.key };
    },

    /** Revoking a revoked key changes nothing and records nothing. */
    async revoke(actor: AuditActor, id: string): Promise<ApiKeyRecord> {
      const key = await tenantKey(actor, id);
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
