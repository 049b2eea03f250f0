import type { DbOrTrx } from '../db';
import type { UserRole } from '../http/roles';

export interface TenantRecord {
  id: string;
  name: string;
  ref_prefix: string;
  webhook_secret_enc: string | null;
  /** When the platform operator allowed the tenant KYC limits looser than the platform's (null: not allowed). */
  loose_kyc_limits_allowed_at: Date | null;
  created_at: Date;
}

export interface ApiKeyRecord {
  id: string;
  tenant_id: string;
  prefix: string;
  name: string;
  scopes: string[];
  allowed_sources: string[] | null;
  expires_at: Date | null;
  /** The end of a rotation's overlap: until then the secret it replaced works too (null: no overlap running or ever). */
  replaced_key_valid_until: Date | null;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface NewApiKey {
  id: string;
  tenantId: string;
  prefix: string;
  keyHash: Buffer;
  name: string;
  scopes: string[];
  allowedSources: string[] | null;
  expiresAt: Date | null;
}

/** A live key found by one of its secrets, with its tenant. */
export interface ApiKeyBySecret {
  id: string;
  tenant_id: string;
  tenant_name: string;
  scopes: string[];
  allowed_sources: string[] | null;
  expires_at: Date | null;
  /** Set when the secret is the one a rotation replaced: when it stops working. */
  replaced_key_valid_until: Date | null;
}

const API_KEY_COLUMNS = [
  'api_keys.id',
  'api_keys.tenant_id',
  'api_keys.prefix',
  'api_keys.name',
  'api_keys.scopes',
  'api_keys.allowed_sources',
  'api_keys.expires_at',
  'api_keys.replaced_key_valid_until',
  'api_keys.created_at',
  'api_keys.revoked_at',
  'api_key_uses.last_used_at',
];

interface DashboardUserRecord {
  id: string;
  tenant_id: string;
  tenant_name: string;
  email: string;
  password_hash: string;
  role: UserRole;
  disabled_at: Date | null;
  /** Whether the user has confirmed a TOTP authenticator (then a password alone does not sign in). */
  two_factor_enrolled: boolean;
}

export interface TenantUserRecord {
  id: string;
  tenant_id: string;
  email: string;
  role: UserRole;
  disabled_at: Date | null;
  created_at: Date;
  last_seen_at: Date | null;
}

interface SessionUserRecord {
  session_id: string;
  user_id: string;
  tenant_id: string;
  email: string;
  role: UserRole;
  awaiting_second_factor: boolean;
  code_verified_at: Date | null;
  two_factor_enrolled: boolean;
  tenant_requires_two_factor: boolean;
}

export function createAuthRepo(db: DbOrTrx) {
  /** Ends the user's reset tokens not used yet (they expire now); returns how many were live. */
  const expirePasswordResetTokens = (userId: string): Promise<number> =>
    db('password_reset_tokens')
      .where({ user_id: userId })
      .whereNull('used_at')
      .where('expires_at', '>', db.fn.now())
      .update({ expires_at: db.fn.now() });

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

    /** Whether the tenant may set KYC limits looser than the platform's; the row stays share-locked until the transaction ends. */
    async looseKycLimitsAllowed(tenantId: string): Promise<boolean> {
      const row: Pick<TenantRecord, 'loose_kyc_limits_allowed_at'> | undefined = await db('tenants')
        .where({ id: tenantId })
        .forShare()
        .first('loose_kyc_limits_allowed_at');
      return row?.loose_kyc_limits_allowed_at != null;
    },

    /** False when there is no such tenant. Allowing again keeps the time it was first allowed. */
    async setLooseKycLimitsAllowed(tenantId: string, allowed: boolean): Promise<boolean> {
      const updated = await db('tenants')
        .where({ id: tenantId })
        .update({ loose_kyc_limits_allowed_at: allowed ? db.raw('coalesce(loose_kyc_limits_allowed_at, now())') : null });
      return updated > 0;
    },

    async insertApiKey(key: NewApiKey): Promise<void> {
      await db('api_keys').insert({
        id: key.id,
        tenant_id: key.tenantId,
        prefix: key.prefix,
        key_hash: key.keyHash,
        name: key.name,
        scopes: key.scopes,
        allowed_sources: key.allowedSources,
        expires_at: key.expiresAt,
      });
    },

    /**
     * The unrevoked key whose current secret, or whose replaced secret, hashes to `keyHash`. A key whose
     * expiry or overlap has passed is still found: the caller tells which and when it ended.
     */
    async findApiKeyBySecret(keyHash: Buffer): Promise<ApiKeyBySecret | undefined> {
      return db('api_keys')
        .join('tenants', 'tenants.id', 'api_keys.tenant_id')
        .where((where) => where.where('api_keys.key_hash', keyHash).orWhere('api_keys.replaced_key_hash', keyHash))
        .whereNull('api_keys.revoked_at')
        .first(
          'api_keys.id',
          'api_keys.tenant_id',
          'tenants.name as tenant_name',
          'api_keys.scopes',
          'api_keys.allowed_sources',
          'api_keys.expires_at',
          db.raw('CASE WHEN api_keys.key_hash = ? THEN NULL ELSE api_keys.replaced_key_valid_until END AS replaced_key_valid_until', [
            keyHash,
          ]),
        );
    },

    async findApiKeysByPrefix(prefix: string): Promise<ApiKeyRecord[]> {
      return db('api_keys').leftJoin('api_key_uses', 'api_key_uses.api_key_id', 'api_keys.id').where({ prefix }).select(API_KEY_COLUMNS);
    },

    /** Newest first. */
    async listApiKeys(tenantId: string): Promise<ApiKeyRecord[]> {
      return db('api_keys')
        .leftJoin('api_key_uses', 'api_key_uses.api_key_id', 'api_keys.id')
        .where({ tenant_id: tenantId })
        .orderBy('api_keys.created_at', 'desc')
        .orderBy('api_keys.id', 'desc')
        .select(API_KEY_COLUMNS);
    },

    async findApiKey(tenantId: string, id: string): Promise<ApiKeyRecord | undefined> {
      return db('api_keys')
        .leftJoin('api_key_uses', 'api_key_uses.api_key_id', 'api_keys.id')
        .where({ 'api_keys.tenant_id': tenantId, 'api_keys.id': id })
        .first(API_KEY_COLUMNS);
    },

    /** The key's secret becomes `keyHash`; the one it had works until `replacedValidUntil` (a secret replaced before stops now). */
    async rotateApiKey(id: string, rotation: { keyHash: Buffer; prefix: string; replacedValidUntil: Date }): Promise<void> {
      await db('api_keys')
        .where({ id })
        .update({
          replaced_key_hash: db.ref('key_hash'),
          replaced_key_valid_until: rotation.replacedValidUntil,
          key_hash: rotation.keyHash,
          prefix: rotation.prefix,
        });
    },

    /** Moves the key's last use to `at`, never back: the newest of any process's notes wins. */
    async noteApiKeyUse(id: string, at: Date): Promise<void> {
      await db.raw(
        `INSERT INTO api_key_uses (api_key_id, last_used_at) VALUES (?, ?)
         ON CONFLICT (api_key_id) DO UPDATE SET last_used_at = GREATEST(api_key_uses.last_used_at, EXCLUDED.last_used_at)`,
        [id, at],
      );
    },

    async revokeApiKey(id: string): Promise<void> {
      await db('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
    },

    async insertUser(user: { id: string; tenantId: string; email: string; passwordHash: string; role: UserRole }): Promise<void> {
      await db('dashboard_users').insert({
        id: user.id,
        tenant_id: user.tenantId,
        email: user.email,
        password_hash: user.passwordHash,
        role: user.role,
      });
    },

    /** The users with that email, oldest first, in every tenant or in the one named; at most `limit`. */
    async findUsersByEmail(email: string, tenantId: string | undefined, limit: number): Promise<DashboardUserRecord[]> {
      const query = db('dashboard_users as u')
        .join('tenants as t', 't.id', 'u.tenant_id')
        .where('u.email', email)
        .orderBy('u.id')
        .limit(limit)
        .select(
          'u.id',
          'u.tenant_id',
          't.name as tenant_name',
          'u.email',
          'u.password_hash',
          'u.role',
          'u.disabled_at',
          db.raw('EXISTS (SELECT 1 FROM totp_enrolments e WHERE e.id = u.id AND e.confirmed_at IS NOT NULL) AS two_factor_enrolled'),
        );
      if (tenantId) query.where('u.tenant_id', tenantId);
      return query;
    },

    async findUserPasswordHash(userId: string): Promise<string | undefined> {
      const row = await db('dashboard_users').where({ id: userId }).first('password_hash');
      return row?.password_hash;
    },

    /** Ends every live session of the user except `keepSessionId`; returns how many ended. */
    async revokeOtherSessions(userId: string, keepSessionId: string): Promise<number> {
      return db('sessions')
        .where({ user_id: userId })
        .whereNot({ id: keepSessionId })
        .whereNull('revoked_at')
        .update({ revoked_at: db.fn.now() });
    },

    expirePasswordResetTokens,

    /** A new reset token replaces any the user has not used yet. */
    async insertPasswordResetToken(token: {
      id: string;
      userId: string;
      tokenHash: Buffer;
      issuedBy: string;
      expiresAt: Date;
    }): Promise<void> {
      await expirePasswordResetTokens(token.userId);
      await db('password_reset_tokens').insert({
        id: token.id,
        user_id: token.userId,
        token_hash: token.tokenHash,
        issued_by: token.issuedBy,
        expires_at: token.expiresAt,
      });
    },

    /** The tenant of the user a live reset token is for (nothing is used up). */
    async findPasswordResetTenant(tokenHash: Buffer): Promise<string | undefined> {
      const row = (await db('password_reset_tokens as r')
        .join('dashboard_users as u', 'u.id', 'r.user_id')
        .where('r.token_hash', tokenHash)
        .whereNull('r.used_at')
        .where('r.expires_at', '>', db.fn.now())
        .first('u.tenant_id')) as { tenant_id: string } | undefined;
      return row?.tenant_id;
    },

    /** Marks a live token used, in one statement, so two requests with one token cannot both use it. */
    async usePasswordResetToken(tokenHash: Buffer): Promise<{ id: string; user_id: string; tenant_id: string; email: string } | undefined> {
      const result: { rows: Array<{ id: string; user_id: string; tenant_id: string; email: string }> } = await db.raw(
        `UPDATE password_reset_tokens r SET used_at = now()
           FROM dashboard_users u
          WHERE r.token_hash = ? AND u.id = r.user_id AND r.used_at IS NULL AND r.expires_at > now() AND u.disabled_at IS NULL
        RETURNING r.id, u.id AS user_id, u.tenant_id, u.email`,
        [tokenHash],
      );
      return result.rows[0];
    },

    /** The tenant's users, oldest first, each with the last time one of its sessions was used. */
    async listUsers(tenantId: string, userId?: string): Promise<TenantUserRecord[]> {
      const query = db('dashboard_users as u')
        .where('u.tenant_id', tenantId)
        .orderBy('u.id')
        .select(
          'u.id',
          'u.tenant_id',
          'u.email',
          'u.role',
          'u.disabled_at',
          'u.created_at',
          db.raw('(SELECT max(s.last_seen_at) FROM sessions s WHERE s.user_id = u.id) AS last_seen_at'),
        );
      if (userId) query.where('u.id', userId);
      return query;
    },

    /** Locks the tenant's user rows, so role changes and disabling are decided one at a time per tenant. */
    async lockTenantUsers(tenantId: string): Promise<Array<Pick<TenantUserRecord, 'id' | 'role' | 'disabled_at'>>> {
      return db('dashboard_users').where({ tenant_id: tenantId }).orderBy('id').forUpdate().select('id', 'role', 'disabled_at');
    },

    async updateUser(id: string, change: { role?: UserRole; disabled?: boolean }): Promise<void> {
      await db('dashboard_users')
        .where({ id })
        .update({
          ...(change.role !== undefined ? { role: change.role } : {}),
          ...(change.disabled !== undefined ? { disabled_at: change.disabled ? db.fn.now() : null } : {}),
        });
    },

    /** Signs the user out everywhere; returns how many live sessions ended. */
    async revokeUserSessions(userId: string): Promise<number> {
      return db('sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
    },

    async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
      await db('dashboard_users').where({ id: userId }).update({ password_hash: passwordHash });
    },

    async insertSession(session: {
      id: string;
      userId: string;
      tokenHash: Buffer;
      expiresAt: Date;
      awaitingSecondFactor: boolean;
    }): Promise<void> {
      await db('sessions').insert({
        id: session.id,
        user_id: session.userId,
        token_hash: session.tokenHash,
        expires_at: session.expiresAt,
        awaiting_second_factor: session.awaitingSecondFactor,
      });
    },

    /**
     * The session behind a token, if it is live: not revoked, not expired, used within `idleMs`, and
     * its user not disabled. Using it moves its last-seen time, in the same statement. With it, what
     * its stage depends on: its second factor, the user's enrolment and the tenant's requirement.
     */
    async touchLiveSession(tokenHash: Buffer, idleMs: number): Promise<SessionUserRecord | undefined> {
      const result: { rows: SessionUserRecord[] } = await db.raw(
        `UPDATE sessions s SET last_seen_at = now()
           FROM dashboard_users u JOIN tenants t ON t.id = u.tenant_id
          WHERE s.token_hash = ? AND u.id = s.user_id
            AND s.revoked_at IS NULL AND s.expires_at > now()
            AND s.last_seen_at > now() - make_interval(secs => ?)
            AND u.disabled_at IS NULL
        RETURNING s.id AS session_id, u.id AS user_id, u.tenant_id, u.email, u.role,
                  s.awaiting_second_factor, s.code_verified_at,
                  EXISTS (SELECT 1 FROM totp_enrolments e WHERE e.id = u.id AND e.confirmed_at IS NOT NULL) AS two_factor_enrolled,
                  t.two_factor_required_at IS NOT NULL AS tenant_requires_two_factor`,
        [tokenHash, idleMs / 1000],
      );
      return result.rows[0];
    },

    async revokeSession(id: string): Promise<void> {
      await db('sessions').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
    },
  };
}

export type AuthRepo = ReturnType<typeof createAuthRepo>;
