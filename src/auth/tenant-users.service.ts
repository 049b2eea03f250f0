import { randomBytes } from 'node:crypto';
import { createAuditLog, type AuditAction, type AuditActor } from '../audit/audit-log';
import type { Db } from '../db';
import { ConflictError, NotFoundError } from '../errors';
import { isUuid } from '../ids';
import { createAuthRepo, type AuthRepo, type TenantUserRecord } from './auth.repo';
import type { AuthService } from './auth.service';
import type { UserRole } from '../http/roles';

/**
 * An admin's management of the tenant's dashboard users. An admin never changes or disables their own
 * user, so a tenant always keeps at least one active admin (the one acting).
 */
export function createTenantUsersService(deps: { db: Db; auth: AuthService }) {
  const { db, auth } = deps;
  const repo = createAuthRepo(db);

  async function find(tenantId: string, userId: string): Promise<TenantUserRecord> {
    const [user] = isUuid(userId) ? await repo.listUsers(tenantId, userId.toLowerCase()) : [];
    if (!user) throw new NotFoundError('user not found');
    return user;
  }

  function refuseSelf(actor: AuditActor, userId: string, what: string): void {
    if (actor.id === userId.toLowerCase()) throw new ConflictError(`you cannot ${what} your own user`);
  }

  /**
   * Applies a change under the lock of the tenant's users and records it in the same transaction;
   * `apply` answers false when the user is already in the asked state (nothing changed, nothing recorded).
   */
  async function change(
    actor: AuditActor,
    userId: string,
    action: AuditAction,
    apply: (user: TenantUserRecord, store: AuthRepo) => Promise<Record<string, unknown> | false>,
  ): Promise<TenantUserRecord> {
    await db.transaction(async (trx) => {
      const store = createAuthRepo(trx);
      await store.lockTenantUsers(actor.tenantId);
      const [user] = isUuid(userId) ? await store.listUsers(actor.tenantId, userId.toLowerCase()) : [];
      if (!user) throw new NotFoundError('user not found');
      const detail = await apply(user, store);
      if (detail) await createAuditLog(trx).record(actor, action, { type: 'user', id: user.id }, { email: user.email, ...detail });
    });
    return find(actor.tenantId, userId);
  }

  return {
    find,

    list(tenantId: string): Promise<TenantUserRecord[]> {
      return repo.listUsers(tenantId);
    },

    /** A new user with a generated password, returned once for the admin to hand over. */
    async create(actor: AuditActor, email: string, role: UserRole): Promise<{ user: TenantUserRecord; password: string }> {
      const password = randomBytes(18).toString('base64url');
      const { userId } = await auth.createUser(actor.tenantId, email, password, role);
      await createAuditLog(db).record(actor, 'user.created', { type: 'user', id: userId }, { email: email.trim().toLowerCase(), role });
      return { user: await find(actor.tenantId, userId), password };
    },

    changeRole(actor: AuditActor, userId: string, role: UserRole): Promise<TenantUserRecord> {
      refuseSelf(actor, userId, 'change the role of');
      return change(actor, userId, 'user.role_changed', async (user, store) => {
        if (user.role === role) return false;
        await store.updateUser(user.id, { role });
        return { from: user.role, to: role };
      });
    },

    /** Disabling also ends every session of the user; enabling lets them sign in again. */
    setDisabled(actor: AuditActor, userId: string, disabled: boolean): Promise<TenantUserRecord> {
      refuseSelf(actor, userId, disabled ? 'disable' : 'enable');
      return change(actor, userId, disabled ? 'user.disabled' : 'user.enabled', async (user, store) => {
        if ((user.disabled_at !== null) === disabled) return false;
        await store.updateUser(user.id, { disabled });
        return disabled ? { sessionsEnded: await store.revokeUserSessions(user.id) } : {};
      });
    },

    /** Ends every live session of a user of the tenant (the admin's own included, when asked). */
    async signOut(actor: AuditActor, userId: string): Promise<number> {
      const user = await find(actor.tenantId, userId);
      return db.transaction(async (trx) => {
        const ended = await createAuthRepo(trx).revokeUserSessions(user.id);
        const action = user.id === actor.id ? 'session.all_signed_out' : 'user.signed_out';
        await createAuditLog(trx).record(actor, action, { type: 'user', id: user.id }, { email: user.email, sessionsEnded: ended });
        return ended;
      });
    },
  };
}

export type TenantUsersService = ReturnType<typeof createTenantUsersService>;
