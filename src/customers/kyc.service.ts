import { createAuditLog } from '../audit/audit-log';
import { recordChange } from '../events/change-events';
import type { Config } from '../config';
import { encryptSecret } from '../crypto';
import { encryptionContext, NIN_COLUMN } from '../encryption/encrypted-columns';
import type { Db } from '../db';
import { AppError, BadRequestError, ConflictError } from '../errors';
import type { AuthenticatedUser } from '../http/context';
import { uuidv7 } from '../ids';
import { requireCustomer } from './customer-lookup';
import { createCustomersRepo, type CustomerRecord, type KycChange } from './customers.repo';
import type { IdentityCheck, IdentityVerifier } from './identity-client';
import type { EventedLedger } from '../events/ledger-events';

function assertCanSubmit(customer: CustomerRecord): void {
  if (customer.kyc_tier >= 2) throw new BadRequestError('kyc_already_complete', 'customer is already at tier 2 or above');
  if (customer.kyc_status === 'pending_review') throw new BadRequestError('kyc_pending_review', 'kyc submission already pending review');
}

/**
 * SPEC.md keeps `rejected` for an operator's decision, so a definite "no match" from the verifier
 * waits for review like an unavailable verifier does, with the reason the operator will see.
 */
function changeFor(check: IdentityCheck): KycChange {
  switch (check.outcome) {
    case 'verified':
      return { kycTier: 2, kycStatus: 'approved', reviewReason: null };
    case 'not_verified':
      return { kycTier: 1, kycStatus: 'pending_review', reviewReason: 'identity verification found no match for this NIN and name' };
    case 'unavailable':
      return { kycTier: 1, kycStatus: 'pending_review', reviewReason: `identity verification unavailable (${check.reason})` };
  }
}

export function createKycService(deps: {
  db: Db;
  config: Pick<Config, 'DATA_ENCRYPTION_KEYRING'>;
  identity: IdentityVerifier;
  postingEngine: Pick<EventedLedger, 'releaseHoldsWithinLimits'>;
}) {
  const { db, config, identity, postingEngine } = deps;
  const customers = createCustomersRepo(db);

  /** Operator decision on a pending submission, recorded with the user and the time. */
  async function decide(user: AuthenticatedUser, id: string, decision: 'approve' | 'reject'): Promise<CustomerRecord> {
    return db.transaction(async (trx) => {
      const store = createCustomersRepo(trx);
      const current = await requireCustomer(store.findForUpdate, user.tenantId, id);
      if (current.kyc_status !== 'pending_review') throw new ConflictError('kyc submission is not pending review');
      const approved = decision === 'approve';
      const updated = await store.updateKyc(current.id, {
        kycTier: approved ? 2 : 1,
        kycStatus: approved ? 'approved' : 'rejected',
        reviewReason: null,
      });
      await store.audit({
        id: uuidv7(),
        tenantId: user.tenantId,
        customerId: current.id,
        userId: user.id,
        action: approved ? 'kyc_approved' : 'kyc_rejected',
        detail: { reviewReason: current.kyc_review_reason },
      });
      await recordChange(trx, {
        kind: 'kyc_decided',
        tenantId: user.tenantId,
        customerId: current.id,
        externalRef: current.external_ref,
        approved,
        tier: approved ? 2 : 1,
        reason: current.kyc_review_reason,
      });
      // After the decision, which the tenant hears of first; the customer's row is locked (above), then its accounts:
      // the order every tier change takes. The ledger tells what it released (`kyc.hold_released`).
      if (approved) await postingEngine.releaseHoldsWithinLimits(trx, current.id, user.id);
      await createAuditLog(trx).record(
        user,
        approved ? 'kyc.approved' : 'kyc.rejected',
        { type: 'customer', id: current.id },
        {
          name: current.name,
          reviewReason: current.kyc_review_reason,
        },
      );
      return updated;
    });
  }

  return {
    /**
     * The verifier is asked outside any transaction (it may take seconds); the rules are checked again
     * under the row lock, so of two concurrent submissions only one is applied. The verifier's answer is
     * about the NIN and the name sent to it, so the submission commits only if that is still the customer's
     * name, exactly: a rename while the verifier was asked leaves nothing recorded (a 409 to submit again).
     */
    async submit(tenantId: string, id: string, nin: string): Promise<CustomerRecord> {
      const customer = await requireCustomer(customers.find, tenantId, id);
      assertCanSubmit(customer);
      const sentName = customer.name;
      const check = await identity.verifyNin(nin, sentName);
      const change = changeFor(check);
      return db.transaction(async (trx) => {
        const store = createCustomersRepo(trx);
        const current = await requireCustomer(store.findForUpdate, tenantId, id);
        assertCanSubmit(current);
        if (current.name !== sentName) {
          throw new AppError(
            'conflict',
            'kyc_name_changed',
            `the customer was renamed from "${sentName}" to "${current.name}" while the identity was being verified under the old name: nothing was recorded; submit again`,
          );
        }
        const updated = await store.updateKyc(current.id, {
          ...change,
          ninEnc: encryptSecret(config.DATA_ENCRYPTION_KEYRING, nin, encryptionContext(NIN_COLUMN, current.id)),
          ninLast4: nin.slice(-4),
        });
        await store.audit({
          id: uuidv7(),
          tenantId,
          customerId: current.id,
          userId: null,
          action: 'kyc_submitted',
          detail: {
            outcome: check.outcome,
            kycStatus: change.kycStatus,
            name: sentName,
            ...(change.reviewReason ? { reviewReason: change.reviewReason } : {}),
          },
        });
        // The verifier's own decision (a match, or a definite refusal); one left for review is told when an operator decides.
        if (change.kycStatus === 'approved' || change.kycStatus === 'rejected') {
          await recordChange(trx, {
            kind: 'kyc_decided',
            tenantId,
            customerId: current.id,
            externalRef: current.external_ref,
            approved: change.kycStatus === 'approved',
            tier: change.kycTier,
            reason: change.reviewReason ?? null,
          });
        }
        if (change.kycTier > current.kyc_tier) await postingEngine.releaseHoldsWithinLimits(trx, current.id, null);
        return updated;
      });
    },

    /**
     * Tier 3 is an operator's decision recorded with its evidence (never self-service); it lifts the holds
     * the new limits no longer justify, and the tenant is told by kyc.approved at tier 3 (the evidence
     * stays in the audit log).
     */
    async recordTier3(
      user: AuthenticatedUser,
      id: string,
      evidence: { evidenceKind: string; evidenceReference: string },
    ): Promise<CustomerRecord> {
      return db.transaction(async (trx) => {
        const store = createCustomersRepo(trx);
        const current = await requireCustomer(store.findForUpdate, user.tenantId, id);
        if (current.kyc_tier === 3) throw new ConflictError('customer is already at tier 3');
        const updated = await store.updateKyc(current.id, { kycTier: 3, kycStatus: 'approved', reviewReason: null });
        await store.audit({
          id: uuidv7(),
          tenantId: user.tenantId,
          customerId: current.id,
          userId: user.id,
          action: 'kyc_tier3_recorded',
          detail: evidence,
        });
        await createAuditLog(trx).record(
          user,
          'kyc.tier_three_recorded',
          { type: 'customer', id: current.id },
          { name: current.name, fromTier: current.kyc_tier, ...evidence },
        );
        await recordChange(trx, {
          kind: 'kyc_decided',
          tenantId: user.tenantId,
          customerId: current.id,
          externalRef: current.external_ref,
          approved: true,
          tier: 3,
          reason: null,
        });
        await postingEngine.releaseHoldsWithinLimits(trx, current.id, user.id);
        return updated;
      });
    },

    approve: (user: AuthenticatedUser, id: string) => decide(user, id, 'approve'),
    reject: (user: AuthenticatedUser, id: string) => decide(user, id, 'reject'),

    /** Oldest waiting first; a decided submission leaves the queue, so the first page is always the next work. */
    reviews(tenantId: string, limit: number): Promise<CustomerRecord[]> {
      return customers.listPendingReview(tenantId, limit + 1);
    },
  };
}

export type KycService = ReturnType<typeof createKycService>;
