import type { DbOrTrx } from '../db';

export interface TenantRecord {
  id: string;
  name: string;
  ref_prefix: string;
  webhook_secret_enc: string | null;
  created_at: Date;
}

export interface ApiKeyRecord {
  id: string;
  tenant_id: string;
  prefix: string;
  revoked_at: Date | null;
}

export interface DashboardUserRecord {
  id: string;
  tenant_id: string;
  email: string;
  password_hash: string;
}

export interface SessionUserRecord {
  session_id: string;
  user_id: string;
  tenant_id: string;
  email: string;
}

export function createAuthRepo(db: DbOrTrx) {
  return {
    async insertTenant(tenant: { id: string; name: string; refPrefix: string }): Promise<TenantRecord> {
      const [row] = await db('tenants').insert({ id: tenant.id, name: tenant.name, ref_prefix: tenant.refPrefix }).returning('*');
      return row as TenantRecord;
    },

    async findTenant(id: string): Promise<TenantRecord | undefined> {
      return db('tenants').where({ id }).first();
    },

    async findTenantByRefPrefix(refPrefix: string): Promise<TenantRecord | undefined> {
      return db('tenants').where({ ref_prefix: refPrefix }).first();
    },

    async setWebhookSecret(tenantId: string, encrypted: string | null): Promise<void> {
      await db('tenants').where({ id: tenantId }).update({ webhook_secret_enc: encrypted });
    },

    async insertApiKey(key: { id: string; tenantId: string; prefix: string; keyHash: Buffer }): Promise<void> {
      await db('api_keys').insert({ id: key.id, tenant_id: key.tenantId, prefix: key.prefix, key_hash: key.keyHash });
    },

    async findTenantByKeyHash(keyHash: Buffer): Promise<Pick<TenantRecord, 'id' | 'name'> | undefined> {
      return db('api_keys')
        .join('tenants', 'tenants.id', 'api_keys.tenant_id')
        .where('api_keys.key_hash', keyHash)
        .whereNull('api_keys.revoked_at')
        .first('tenants.id', 'tenants.name');
    },

    async findApiKeysByPrefix(prefix: string): Promise<ApiKeyRecord[]> {
      return db('api_keys').where({ prefix }).select('id', 'tenant_id', 'prefix', 'revoked_at');
    },

    async revokeApiKey(id: string): Promise<void> {
      await db('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
    },

    async insertUser(user: { id: string; tenantId: string; email: string; passwordHash: string }): Promise<void> {
      await db('dashboard_users').insert({ id: user.id, tenant_id: user.tenantId, email: user.email, password_hash: user.passwordHash });
    },

    async findUserByEmail(email: string): Promise<DashboardUserRecord | undefined> {
      return db('dashboard_users').where({ email }).first('id', 'tenant_id', 'email', 'password_hash');
    },

    async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
      await db('dashboard_users').where({ id: userId }).update({ password_hash: passwordHash });
    },

    async insertSession(session: { id: string; userId: string; tokenHash: Buffer; expiresAt: Date }): Promise<void> {
      await db('sessions').insert({ id: session.id, user_id: session.userId, token_hash: session.tokenHash, expires_at: session.expiresAt });
    },

    async findLiveSession(tokenHash: Buffer): Promise<SessionUserRecord | undefined> {
      return db('sessions')
        .join('dashboard_users', 'dashboard_users.id', 'sessions.user_id')
        .where('sessions.token_hash', tokenHash)
        .whereNull('sessions.revoked_at')
        .where('sessions.expires_at', '>', db.fn.now())
        .first('sessions.id as session_id', 'dashboard_users.id as user_id', 'dashboard_users.tenant_id', 'dashboard_users.email');
    },

    async revokeSession(id: string): Promise<void> {
      await db('sessions').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
    },
  };
}

export type AuthRepo = ReturnType<typeof createAuthRepo>;
