import { createAuditLog } from '../audit/audit-log';
import type { Config } from '../config';
import { decryptSecret, encryptSecret } from '../crypto';
import type { Db } from '../db';
import { TOTP_SECRET_COLUMN, encryptionContext } from '../encryption/encrypted-columns';
import { AppError, ConflictError, NotFoundError, type ErrorKind } from '../errors';
import type { AuthenticatedUser } from '../http/context';
import { isUuid, uuidv7 } from '../ids';
import type { RateLimits } from '../rate-limits/rate-limits';
import { createAuthRepo } from './auth.repo';
import { RECOVERY_CODE_COUNT, hashRecoveryCode, newRecoveryCode, newTotpSecret, totpCodeStep, totpQrCodeSvg, totpUri } from './totp';
import { ROLES_REQUIRING_TWO_FACTOR } from './two-factor-requirement';
import { createTwoFactorRepo, type TotpEnrolmentRecord } from './two-factor.repo';

/** How a code given is judged. */
type CodeOutcome = 'accepted' | 'wrong' | 'replayed';

/** The second factor that finishes a sign-in: a code of the authenticator app, or one of the recovery codes. */
export type SecondFactor = { code: string } | { recoveryCode: string };

/**
 * Two-factor sign-in with TOTP: enrolment (a secret and its QR code, confirmed by a first code, then
 * recovery codes shown once), the second step of signing in, step-up for sensitive actions, turning it
 * off, an admin's reset of another user's, and the tenant's requirement. Code attempts are limited like
 * sign-ins (per client address, shared with them) and per user (failures only: a lockout).
 */
export function createTwoFactorService(deps: {
  db: Db;
  config: Pick<Config, 'DATA_ENCRYPTION_KEYRING' | 'SESSION_TTL'>;
  limits: Pick<RateLimits, 'signInAddress' | 'secondFactorUser'>;
  clock: () => number;
}) {
  const { db, config, limits, clock } = deps;
  const repo = createTwoFactorRepo(db);
  const keyring = config.DATA_ENCRYPTION_KEYRING;

  const secretOf = (enrolment: TotpEnrolmentRecord) =>
    decryptSecret(keyring, enrolment.secret_enc, encryptionContext(TOTP_SECRET_COLUMN, enrolment.id));

  /** Judges a TOTP code against the user's secret (confirmed, or not yet when `confirming`) and records its step when it passes. */
  async function judgeCode(store: typeof repo, userId: string, code: string, confirming: boolean): Promise<CodeOutcome> {
    const enrolment = await store.findEnrolment(userId);
    if (!enrolment || (enrolment.confirmed_at !== null) === confirming) return 'wrong';
    const step = await totpCodeStep(secretOf(enrolment), code, clock());
    if (step === null) return 'wrong';
    if (enrolment.last_time_step !== null && step <= Number(enrolment.last_time_step)) return 'replayed';
    return (await store.acceptTimeStep(userId, step, confirming)) ? 'accepted' : 'replayed';
  }

  function refuseCode(outcome: Exclude<CodeOutcome, 'accepted'>, kind: ErrorKind): never {
    if (outcome === 'replayed')
      throw new AppError(kind, 'code_already_used', 'that code was used already: wait for your authenticator app to show the next one');
    throw new AppError(kind, 'invalid_code', 'that code is not right: check the time on your phone and give the code shown now');
  }

  /** Counts an attempt before it is judged (a lockout refuses even the right code); a success gives the user's attempt back. */
  async function limited(ip: string, userId: string, attempt: () => Promise<CodeOutcome>): Promise<CodeOutcome> {
    await limits.signInAddress.consume(ip);
    await limits.secondFactorUser.consume(userId);
    const outcome = await attempt();
    if (outcome === 'accepted') await limits.secondFactorUser.reward(userId);
    return outcome;
  }

  async function requiredOf(user: Pick<AuthenticatedUser, 'tenantId' | 'role'>): Promise<boolean> {
    return ROLES_REQUIRING_TWO_FACTOR.includes(user.role) && (await repo.tenantRequiresTwoFactor(user.tenantId));
  }

  return {
    async status(user: AuthenticatedUser) {
      const tenantRequires = await repo.tenantRequiresTwoFactor(user.tenantId);
      return {
        enrolled: user.twoFactorEnrolled,
        recoveryCodesLeft: user.twoFactorEnrolled ? await repo.unusedRecoveryCodes(user.id) : 0,
        tenantRequires,
        requiredForRoles: [...ROLES_REQUIRING_TWO_FACTOR],
        requiredOfYou: tenantRequires && ROLES_REQUIRING_TWO_FACTOR.includes(user.role),
      };
    },

    /** A new secret (replacing one not yet confirmed), its otpauth URI and the URI as a QR code. */
    async startEnrolment(user: AuthenticatedUser): Promise<{ secret: string; otpauthUri: string; qrCodeSvg: string }> {
      const secret = newTotpSecret();
      const started = await repo.startEnrolment(user.id, encryptSecret(keyring, secret, encryptionContext(TOTP_SECRET_COLUMN, user.id)));
      if (!started)
        throw new ConflictError('two-factor sign-in is already on for your user: turn it off first to change the authenticator');
      const otpauthUri = totpUri(secret, user.email);
      return { secret, otpauthUri, qrCodeSvg: await totpQrCodeSvg(otpauthUri) };
    },

    /** The first code turns two-factor sign-in on; the recovery codes are in this answer only. */
    async confirmEnrolment(user: AuthenticatedUser, code: string): Promise<{ recoveryCodes: string[] }> {
      return db.transaction(async (trx) => {
        const store = createTwoFactorRepo(trx);
        const enrolment = await store.findEnrolment(user.id);
        if (!enrolment) throw new ConflictError('start the enrolment first: there is no authenticator secret to confirm');
        if (enrolment.confirmed_at !== null) throw new ConflictError('two-factor sign-in is already on for your user');
        const outcome = await judgeCode(store, user.id, code, true);
        if (outcome !== 'accepted') refuseCode(outcome, 'invalid');
        const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
        await store.replaceRecoveryCodes(
          user.id,
          recoveryCodes.map((recoveryCode) => ({ id: uuidv7(), codeHash: hashRecoveryCode(recoveryCode) })),
        );
        await store.noteCodeVerified(user.sessionId, new Date(clock()));
        await createAuditLog(trx).record(
          user,
          'two_factor.enrolled',
          { type: 'user', id: user.id },
          { recoveryCodes: RECOVERY_CODE_COUNT },
        );
        return { recoveryCodes };
      });
    },

    /** The second step of signing in: the session is signed in for its full lifetime once a code passes. */
    async completeSignIn(user: AuthenticatedUser, ip: string, factor: SecondFactor): Promise<{ expiresAt: Date }> {
      const expiresAt = new Date(Date.now() + config.SESSION_TTL);
      if ('code' in factor) {
        const outcome = await limited(ip, user.id, () => judgeCode(repo, user.id, factor.code, false));
        if (outcome !== 'accepted') refuseCode(outcome, 'unauthorized');
        await db.transaction(async (trx) => {
          await createTwoFactorRepo(trx).completeSecondFactor(user.sessionId, expiresAt, new Date(clock()));
          await createAuditLog(trx).record(user, 'session.signed_in', { type: 'user', id: user.id }, { secondFactor: 'totp' });
        });
        return { expiresAt };
      }
      const outcome = await limited(ip, user.id, () =>
        db.transaction(async (trx): Promise<CodeOutcome> => {
          const store = createTwoFactorRepo(trx);
          if (!(await store.useRecoveryCode(user.id, hashRecoveryCode(factor.recoveryCode)))) return 'wrong';
          // A recovery code signs in; it is not a code of the authenticator, so it does not count as a fresh one.
          await store.completeSecondFactor(user.sessionId, expiresAt, null);
          const auditLog = createAuditLog(trx);
          const left = await store.unusedRecoveryCodes(user.id);
          await auditLog.record(user, 'two_factor.recovery_code_used', { type: 'user', id: user.id }, { recoveryCodesLeft: left });
          await auditLog.record(user, 'session.signed_in', { type: 'user', id: user.id }, { secondFactor: 'recovery_code' });
          return 'accepted';
        }),
      );
      if (outcome !== 'accepted') throw new AppError('unauthorized', 'invalid_code', 'that recovery code is not right or was used already');
      return { expiresAt };
    },

    /** A code given now, for an action that asks for a fresh one. */
    async stepUp(user: AuthenticatedUser, ip: string, code: string): Promise<{ codeVerifiedAt: Date }> {
      if (!user.twoFactorEnrolled) throw new ConflictError('two-factor sign-in is off for your user: set up an authenticator app first');
      const outcome = await limited(ip, user.id, () => judgeCode(repo, user.id, code, false));
      if (outcome !== 'accepted') refuseCode(outcome, 'invalid');
      const codeVerifiedAt = new Date(clock());
      await repo.noteCodeVerified(user.sessionId, codeVerifiedAt);
      return { codeVerifiedAt };
    },

    /** The user turns their own two-factor sign-in off (the route asks for a fresh code), unless their tenant requires it of their role. */
    async disable(user: AuthenticatedUser): Promise<void> {
      if (await requiredOf(user))
        throw new ConflictError('your organisation requires two-factor sign-in for your role: it cannot be turned off');
      await db.transaction(async (trx) => {
        if (!(await createTwoFactorRepo(trx).removeEnrolment(user.id)))
          throw new ConflictError('two-factor sign-in is already off for your user');
        await createAuditLog(trx).record(user, 'two_factor.disabled', { type: 'user', id: user.id });
      });
    },

    /**
     * An admin removes another user's authenticator and recovery codes (a lost phone) and ends their
     * sessions: they sign in with the password alone and, where required, enrol again.
     */
    async reset(actor: AuthenticatedUser, userId: string): Promise<{ sessionsEnded: number }> {
      if (actor.id === userId.toLowerCase()) throw new ConflictError('turn your own two-factor sign-in off on your own page, with a code');
      return db.transaction(async (trx) => {
        const users = createAuthRepo(trx);
        const [user] = isUuid(userId) ? await users.listUsers(actor.tenantId, userId.toLowerCase()) : [];
        if (!user) throw new NotFoundError('user not found');
        if (!(await createTwoFactorRepo(trx).removeEnrolment(user.id)))
          throw new ConflictError('this user has no two-factor sign-in to reset');
        const sessionsEnded = await users.revokeUserSessions(user.id);
        await createAuditLog(trx).record(actor, 'two_factor.reset', { type: 'user', id: user.id }, { email: user.email, sessionsEnded });
        return { sessionsEnded };
      });
    },

    /** Turns the tenant's requirement on or off (turning it off asks for a fresh code at the route); unchanged is not recorded. */
    async setRequirement(actor: AuthenticatedUser, required: boolean): Promise<void> {
      await db.transaction(async (trx) => {
        if (!(await createTwoFactorRepo(trx).setTenantRequirement(actor.tenantId, required))) return;
        await createAuditLog(trx).record(
          actor,
          required ? 'two_factor_requirement.turned_on' : 'two_factor_requirement.turned_off',
          { type: 'tenant', id: actor.tenantId },
          { roles: [...ROLES_REQUIRING_TWO_FACTOR] },
        );
      });
    },
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
