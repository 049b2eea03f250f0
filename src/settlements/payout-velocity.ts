import type { Db, Trx } from '../db';
import { BadRequestError } from '../errors';
import { createIdempotencyRepo } from '../idempotency/idempotency.repo';
import { recordVelocityTriggered, type PayoutVelocity, type VelocityVerdict } from '../velocity-rules/velocity-rules.access';
import type { VelocityRefusal } from './settle-outcomes';
import type { SettlementDraft } from './settlement-initiation.repo';

/** The tenant's velocity rules as a payout meets them: their verdict in the payout's transaction, and a refusal told. */
export function createPayoutVelocityCheck(db: Db) {
  return {
    /**
     * The tenant's velocity rules' verdict on a payout, under their locks, in the transaction that makes or holds it. A
     * retry under an Idempotency-Key already claimed is not judged again: it answers what the key made.
     */
    async judge(trx: Trx, velocity: PayoutVelocity, draft: SettlementDraft, accountId: string): Promise<VelocityVerdict> {
      const { tenantId, idempotencyKey, bankCode, accountNumber, amount } = draft;
      if (idempotencyKey !== null && (await createIdempotencyRepo(trx).find(tenantId, 'settlement', idempotencyKey)))
        return { action: 'allow' };
      return velocity.judge(trx, { tenantId, accountId, bankCode, accountNumber, amount });
    },

    /** A velocity rule refused the payout (its transaction wrote nothing): told to the tenant, then the caller's 400. */
    async refusal(verdict: VelocityRefusal, draft: SettlementDraft): Promise<Error> {
      const { tenantId, accountRef, amount } = draft;
      await db.transaction((trx) => recordVelocityTriggered(trx, { tenantId, verdict, accountRef, amount, merchantTxRef: null }));
      return new BadRequestError('velocity_limit', verdict.message);
    },
  };
}

export type PayoutVelocityCheck = ReturnType<typeof createPayoutVelocityCheck>;
