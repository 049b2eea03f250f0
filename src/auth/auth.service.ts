import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import { sha256 } from '../crypto';
import { isUniqueViolation, type Db } from '../db';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../errors';
import { ALL_SCOPES } from '../http/api-key-scopes';
import type { AuthenticatedApiKey, AuthenticatedUser } from '../http/context';
import type { Logger } from '../logger';
import type { Authenticator } from '../http/middleware/auth';
import { randomToken, uuidv7 } from '../ids';
import type { ApiKeyCache } from './api-key-cache';
import { API_KEY_USE_NOTE_INTERVAL_MS, createApiKeyUseNotes } from './api-key-uses';
import { generateApiKey, hashApiKey } from './api-keys';
import { createAuthRepo, type TenantRecord } from './auth.repo';
import { createPasswordHasher } from './passwords';
import type { UserRole } from '../http/roles';
import { sessionStage } from './two-factor-requirement';

/**
 * A session: signed in, or (`awaitingSecondFactor`) signed in with the password only, which can do
 * nothing until a TOTP or recovery code is given.
 */
interface SignedIn {
  kind: 'signed_in';
  awaitingSecondFactor: boolean;
  token: string;
  userId: string;
  tenantId: string;
  email: string;
  role: UserRole;
  expiresAt: Date;
}

/** The email and password match users of more than one tenant: the caller signs in again naming one. */
interface TenantChoice {
  kind: 'choose_tenant';
  tenants: Array<{ id: string; name: string }>;
}

type LoginResult = SignedIn | TenantChoice;

/** How long a session signed in with the password alone waits for its second factor. */
const SECOND_FACTOR_WAIT_MS = 5 * 60_000;

/** The most tenants one sign-in tries a password against (each try is one scrypt hash). */
const MAX_TENANTS_PER_EMAIL = 10;

type AuthConfig = Pick<
  Config,
  'SESSION_TTL' | 'SESSION_IDLE_TIMEOUT' | 'PASSWORD_SCRYPT_LOG_N' | 'PASSWORD_HASH_CONCURRENCY' | 'PASSWORD_HASH_QUEUE'
>;

/**
 * `apiKeyCache`: the API process's; tools that only change keys (the CLI) run without one. `clock`: the
 * time TOTP codes are judged by (and a code's freshness measured with); tests pass their own.
 */
export function createAuthService(deps: { db: Db; config: AuthConfig; apiKeyCache?: ApiKeyCache; logger?: Logger; clock?: () => number }) {
  const { db, config, apiKeyCache, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const repo = createAuthRepo(db);
  const passwords = createPasswordHasher({
    logN: config.PASSWORD_SCRYPT_LOG_N,
    concurrency: config.PASSWORD_HASH_CONCURRENCY,
    maxWaiting: config.PASSWORD_HASH_QUEUE,
  });

  /** The platform operator's keys (a new tenant's first, the CLI's) have every scope: the tenant narrows its own in the dashboard. */
  async function issueApiKey(tenantId: string, name: string, store = repo): Promise<string> {
    const apiKey = generateApiKey();
    await store.insertApiKey({
      id: uuidv7(),
      tenantId,
      prefix: apiKey.prefix,
      keyHash: apiKey.hash,
      name,
      scopes: [ALL_SCOPES],
      allowedSources: null,
      expiresAt: null,
    });
    return apiKey.key;
  }

  const uses = createApiKeyUseNotes({
    intervalMs: API_KEY_USE_NOTE_INTERVAL_MS,
    write: (keyId, at) => repo.noteApiKeyUse(keyId, at),
    onError: (error) => logger?.warn({ err: error }, 'could not record an api key use'),
  });

  /** The users of that email (in the one tenant, when named) whose password it is; the hashing cost is paid for no user too. */
  async function matchingUsers(email: string, password: string, tenantId?: string) {
    const candidates = await repo.findUsersByEmail(email.trim().toLowerCase(), tenantId?.toLowerCase(), MAX_TENANTS_PER_EMAIL);
    if (candidates.length === 0) await passwords.verify(password, passwords.dummyHash);
    const matches: typeof candidates = [];
    for (const candidate of candidates) if (await passwords.verify(password, candidate.password_hash)) matches.push(candidate);
    return matches;
  }

  const authenticator: Authenticator = {
    now: clock,
    async apiKeyFor(secret: string): Promise<AuthenticatedApiKey | null> {
      if (secret.length > 200) return null;
      const hash = hashApiKey(secret);
      const load = async (): Promise<AuthenticatedApiKey | null> => {
        const key = await repo.findApiKeyBySecret(hash);
        return key
          ? {
              id: key.id,
              tenant: { id: key.tenant_id, name: key.tenant_name },
              scopes: key.scopes,
              allowedSources: key.allowed_sources,
              expiresAt: key.expires_at?.getTime() ?? null,
              replacedSecretValidUntil: key.replaced_key_valid_until?.getTime() ?? null,
            }
          : null;
      };
      return apiKeyCache ? apiKeyCache.keyFor(hash.toString('hex'), load) : load();
    },
    noteApiKeyUse: uses.note,
    async userForSession(token: string): Promise<AuthenticatedUser | null> {
      if (token.length > 200) return null;
      const session = await repo.touchLiveSession(sha256(token), config.SESSION_IDLE_TIMEOUT);
      if (!session) return null;
      return {
        id: session.user_id,
        tenantId: session.tenant_id,
        email: session.email,
        role: session.role,
        sessionId: session.session_id,
        stage: sessionStage({
          awaitingSecondFactor: session.awaiting_second_factor,
          role: session.role,
          enrolled: session.two_factor_enrolled,
          tenantRequiresTwoFactor: session.tenant_requires_two_factor,
        }),
        twoFactorEnrolled: session.two_factor_enrolled,
        tenantRequiresTwoFactor: session.tenant_requires_two_factor,
        codeVerifiedAt: session.code_verified_at?.getTime() ?? null,
      };
    },
  };

  return {
    authenticator,

    /** `id`: given when the tenant's cluster was chosen for it first (the directory names it before its rows exist). */
    /**
     * `claimRefPrefix`, with several clusters: whether the prefix drawn is free on every cluster, reserving it for the
     * tenant if so (the prefix is unique on this cluster by its constraint). A clash either way draws another.
     */
    async createTenant(
      name: string,
      id: string = uuidv7(),
      claimRefPrefix?: (tenantId: string, refPrefix: string) => Promise<boolean>,
    ): Promise<{ tenantId: string; apiKey: string }> {
      const trimmed = name.trim();
      if (trimmed.length < 1 || trimmed.length > 200) throw new ValidationError('name must be 1 to 200 characters');
      for (;;) {
        const refPrefix = randomToken(6);
        if (claimRefPrefix && !(await claimRefPrefix(id, refPrefix))) continue;
        try {
          return await db.transaction(async (trx) => {
            const store = createAuthRepo(trx);
            const tenant = await store.insertTenant({ id, name: trimmed, refPrefix });
            return { tenantId: tenant.id, apiKey: await issueApiKey(tenant.id, 'Initial key', store) };
          });
        } catch (error) {
          if (!isUniqueViolation(error, 'tenants_ref_prefix_key')) throw error;
        }
      }
    },

    async findTenant(tenantId: string): Promise<TenantRecord> {
      const tenant = await repo.findTenant(tenantId);
      if (!tenant) throw new NotFoundError('tenant not found');
      return tenant;
    },

    async createApiKey(tenantId: string): Promise<string> {
      await this.findTenant(tenantId);
      return issueApiKey(tenantId, 'Made with the CLI');
    },

    /** Revokes the key whose first characters are `prefix`; refuses an ambiguous prefix. */
    async revokeApiKey(prefix: string): Promise<{ tenantId: string }> {
      const keys = (await repo.findApiKeysByPrefix(prefix)).filter((key) => key.revoked_at === null);
      if (keys.length === 0) throw new NotFoundError('no active api key has that prefix');
      if (keys.length > 1) throw new ConflictError('more than one active api key has that prefix');
      await repo.revokeApiKey(keys[0]!.id);
      // Other processes forget it when the change's notification reaches them; this one at once.
      apiKeyCache?.forget();
      return { tenantId: keys[0]!.tenant_id };
    },

    /** Users made without a role (the CLI's) are the tenant's admins. */
    async createUser(tenantId: string, email: string, password: string, role: UserRole = 'admin'): Promise<{ userId: string }> {
      await this.findTenant(tenantId);
      const passwordHash = await this.hashNewPassword(password);
      const userId = uuidv7();
      try {
        await repo.insertUser({ id: userId, tenantId, email: email.trim().toLowerCase(), passwordHash, role });
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError('this tenant already has a user with that email');
        throw error;
      }
      return { userId };
    },

    /**
     * Without `tenantId`, the password is tried against the user of that email in each tenant: one match
     * signs in, several ask the caller to choose (only a caller who knows the password learns the
     * tenants). An unknown email costs one hash, like a wrong password.
     */
    /** The tenants whose user of that email has that password (a sign-in spanning clusters asks each cluster). */
    async tenantsSignedInBy(email: string, password: string): Promise<Array<{ id: string; name: string }>> {
      const matches = await matchingUsers(email, password);
      return matches.map((match) => ({ id: match.tenant_id, name: match.tenant_name }));
    },

    async login(email: string, password: string, tenantId?: string): Promise<LoginResult> {
      const matches = await matchingUsers(email, password, tenantId);
      if (matches.length === 0) throw new UnauthorizedError('invalid email or password');
      if (matches.length > 1)
        return { kind: 'choose_tenant', tenants: matches.map((match) => ({ id: match.tenant_id, name: match.tenant_name })) };
      const user = matches[0]!;
      // Only a caller who knows the password learns that the user is disabled.
      if (user.disabled_at) throw new ForbiddenError('user is disabled');
      if (passwords.isOutdated(user.password_hash)) await repo.setPasswordHash(user.id, await passwords.hash(password));
      // A user with an authenticator has a short while to give its code; the session is good for nothing else.
      const awaitingSecondFactor = user.two_factor_enrolled;
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(Date.now() + (awaitingSecondFactor ? SECOND_FACTOR_WAIT_MS : config.SESSION_TTL));
      await repo.insertSession({ id: uuidv7(), userId: user.id, tokenHash: sha256(token), expiresAt, awaitingSecondFactor });
      return {
        kind: 'signed_in',
        awaitingSecondFactor,
        token,
        userId: user.id,
        tenantId: user.tenant_id,
        email: user.email,
        role: user.role,
        expiresAt,
      };
    },

    /** At least 12 characters; hashed at today's cost. */
    async hashNewPassword(password: string): Promise<string> {
      if (password.length < 12) throw new ValidationError('password must be at least 12 characters');
      return passwords.hash(password);
    },

    async isUsersPassword(userId: string, password: string): Promise<boolean> {
      const stored = await repo.findUserPasswordHash(userId);
      return passwords.verify(password, stored ?? passwords.dummyHash);
    },

    async logout(sessionId: string): Promise<void> {
      await repo.revokeSession(sessionId);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
