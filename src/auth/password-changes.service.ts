import { randomBytes } from 'node:crypto';
import { createAuditLog, type AuditActor } from '../audit/audit-log';
import type { Config } from '../config';
import { sha256 } from '../crypto';
import type { Db } from '../db';
import { BadRequestError, NotFoundError } from '../errors';
import { isUuid, uuidv7 } from '../ids';
import { createAuthRepo } from './auth.repo';
import type { AuthService } from './auth.service';

/**
 * A user's own password change and the admin-issued reset. Either ends the user's other sessions (a
 * change keeps the session that made it) and is audited in the same transaction as the change. A
 * change also cancels the reset tokens the user has not used: a token issued before it (to someone who
 * asked for access back, or intercepted) must not undo the password the user has just chosen.
 */
export function createPasswordChangesService(deps: { db: Db; auth: AuthService; config: Pick<Config, 'PASSWORD_RESET_TTL'> }) {
  const { db, auth, config } = deps;

  return {
    /** Needs the current password, so a session left open is not enough to take the account over. */
    async change(
      user: AuditActor & { sessionId: string },
      currentPassword: string,
      newPassword: string,
    ): Promise<{ sessionsEnded: number }> {
      if (!(await auth.isUsersPassword(user.id, currentPassword)))
        throw new BadRequestError('wrong_password', 'the current password is not right');
      if (currentPassword === newPassword)
        throw new BadRequestError('validation_error', 'the new password must differ from the current one');
      const passwordHash = await auth.hashNewPassword(newPassword);
      return db.transaction(async (trx) => {
        const store = createAuthRepo(trx);
        await store.setPasswordHash(user.id, passwordHash);
        const sessionsEnded = await store.revokeOtherSessions(user.id, user.sessionId);
        const resetTokensCancelled = await store.expirePasswordResetTokens(user.id);
        await createAuditLog(trx).record(
          user,
          'user.password_changed',
          { type: 'user', id: user.id },
          { sessionsEnded, resetTokensCancelled },
        );
        return { sessionsEnded };
      });
    },

    /**
     * A one-time token for a user of the admin's tenant, in this answer only (only its hash is kept);
     * it replaces any earlier token of the user not yet used. The password stays as it is until the
     * token is used.
     */
    async issueReset(actor: AuditActor, userId: string): Promise<{ token: string; expiresAt: Date }> {
      const [user] = isUuid(userId) ? await createAuthRepo(db).listUsers(actor.tenantId, userId.toLowerCase()) : [];
      if (!user) throw new NotFoundError('user not found');
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(Date.now() + config.PASSWORD_RESET_TTL);
      await db.transaction(async (trx) => {
        await createAuthRepo(trx).insertPasswordResetToken({
          id: uuidv7(),
          userId: user.id,
          tokenHash: sha256(token),
          issuedBy: actor.id,
          expiresAt,
        });
        await createAuditLog(trx).record(
          actor,
          'user.password_reset_issued',
          { type: 'user', id: user.id },
          { email: user.email, expiresAt: expiresAt.toISOString() },
        );
      });
      return { token, expiresAt };
    },

    /** Uses the token once (never after it expires, nor for a disabled user), sets the password and ends every session. */
    async reset(token: string, newPassword: string): Promise<{ sessionsEnded: number }> {
      const passwordHash = await auth.hashNewPassword(newPassword);
      return db.transaction(async (trx) => {
        const store = createAuthRepo(trx);
        const used = await store.usePasswordResetToken(sha256(token));
        if (!used)
          throw new BadRequestError(
            'invalid_reset_token',
            'this reset token is not valid: it was used, has expired or was replaced; ask your admin for a new one',
          );
        await store.setPasswordHash(used.user_id, passwordHash);
        const sessionsEnded = await store.revokeUserSessions(used.user_id);
        const user = { id: used.user_id, tenantId: used.tenant_id, email: used.email };
        await createAuditLog(trx).record(user, 'user.password_reset', { type: 'user', id: user.id }, { sessionsEnded });
        return { sessionsEnded };
      });
    },
  };
}

export type PasswordChangesService = ReturnType<typeof createPasswordChangesService>;
