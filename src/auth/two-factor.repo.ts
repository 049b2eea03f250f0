import type { DbOrTrx } from '../db';

export interface TotpEnrolmentRecord {
  /** The user's id. */
  id: string;
  secret_enc: string;
  confirmed_at: Date | null;
  last_time_step: string | null;
}

export function createTwoFactorRepo(db: DbOrTrx) {
  return {
    async findEnrolment(userId: string): Promise<TotpEnrolmentRecord | undefined> {
      return db('totp_enrolments').where({ id: userId }).first('id', 'secret_enc', 'confirmed_at', 'last_time_step');
    },

    /** A new unconfirmed secret replaces an unconfirmed one; a confirmed enrolment is never replaced (false then). */
    async startEnrolment(userId: string, secretEnc: string): Promise<boolean> {
      const result: { rowCount: number } = await db.raw(
        `INSERT INTO totp_enrolments (id, secret_enc) VALUES (?, ?)
         ON CONFLICT (id) DO UPDATE SET secret_enc = EXCLUDED.secret_enc, created_at = now(), last_time_step = NULL
           WHERE totp_enrolments.confirmed_at IS NULL`,
        [userId, secretEnc],
      );
      return result.rowCount > 0;
    },

    /**
     * Records that a code of `timeStep` was accepted, in one statement, so two requests with one code
     * cannot both pass: false when a code of this step or a later one was accepted already.
     */
    async acceptTimeStep(userId: string, timeStep: number, confirm: boolean): Promise<boolean> {
      const updated = await db('totp_enrolments')
        .where({ id: userId })
        .where((where) => where.whereNull('last_time_step').orWhere('last_time_step', '<', timeStep))
        .modify((query) => (confirm ? query.whereNull('confirmed_at') : query.whereNotNull('confirmed_at')))
        .update({ last_time_step: timeStep, ...(confirm ? { confirmed_at: db.fn.now() } : {}) });
      return updated > 0;
    },

    async replaceRecoveryCodes(userId: string, codes: Array<{ id: string; codeHash: Buffer }>): Promise<void> {
      await db('totp_recovery_codes').where({ user_id: userId }).delete();
      await db('totp_recovery_codes').insert(codes.map((code) => ({ id: code.id, user_id: userId, code_hash: code.codeHash })));
    },

    /** Marks an unused code used, in one statement (a code is good once); false when there is none. */
    async useRecoveryCode(userId: string, codeHash: Buffer): Promise<boolean> {
      const updated = await db('totp_recovery_codes')
        .where({ user_id: userId, code_hash: codeHash })
        .whereNull('used_at')
        .update({ used_at: db.fn.now() });
      return updated > 0;
    },

    async unusedRecoveryCodes(userId: string): Promise<number> {
      const row = await db('totp_recovery_codes')
        .where({ user_id: userId })
        .whereNull('used_at')
        .count<{ count: string }>('* as count')
        .first();
      return Number(row?.count ?? 0);
    },

    /** Removes the user's secret and recovery codes; false when they had none. */
    async removeEnrolment(userId: string): Promise<boolean> {
      await db('totp_recovery_codes').where({ user_id: userId }).delete();
      return (await db('totp_enrolments').where({ id: userId }).delete()) > 0;
    },

    /** The session's second factor was given: it is signed in for the session's full lifetime from now. */
    async completeSecondFactor(sessionId: string, expiresAt: Date, codeVerifiedAt: Date | null): Promise<void> {
      await db('sessions')
        .where({ id: sessionId })
        .update({ awaiting_second_factor: false, expires_at: expiresAt, ...(codeVerifiedAt ? { code_verified_at: codeVerifiedAt } : {}) });
    },

    async noteCodeVerified(sessionId: string, at: Date): Promise<void> {
      await db('sessions').where({ id: sessionId }).update({ code_verified_at: at });
    },

    async tenantRequiresTwoFactor(tenantId: string): Promise<boolean> {
      const row = await db('tenants').where({ id: tenantId }).first('two_factor_required_at');
      return row?.two_factor_required_at != null;
    },

    /** False when the tenant was already in that state. */
    async setTenantRequirement(tenantId: string, required: boolean): Promise<boolean> {
      const updated = await db('tenants')
        .where({ id: tenantId })
        .modify((query) => (required ? query.whereNull('two_factor_required_at') : query.whereNotNull('two_factor_required_at')))
        .update({ two_factor_required_at: required ? db.fn.now() : null });
      return updated > 0;
    },
  };
}

export type TwoFactorRepo = ReturnType<typeof createTwoFactorRepo>;
