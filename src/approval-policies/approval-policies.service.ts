import { createAuditLog, type AuditActor } from '../audit/audit-log';
import type { Db } from '../db';
import { formatKobo } from '../money';
import { DEFAULT_APPROVAL_EXPIRY_SECONDS } from '../policies/payout-approval/payout-approval';
import { createApprovalPoliciesRepo } from './approval-policies.repo';
import type { PutApprovalPolicyBody } from './approval-policies.schemas';

/** The tenant's approval policy as the dashboard shows it: off (no row) reads as the defaults a new one starts with. */
export interface ApprovalPolicyView {
  enabled: boolean;
  payoutAtOrAbove: string | null;
  newDestination: boolean;
  expiresAfterSeconds: number;
  transferAbove: string | null;
  sweeps: boolean;
  batchTotalAtOrAbove: string | null;
  batchItemsAtOrAbove: number | null;
  updatedAt: string | null;
}

export function createApprovalPoliciesService(deps: { db: Db }) {
  const { db } = deps;

  async function view(tenantId: string): Promise<ApprovalPolicyView> {
    const policy = await createApprovalPoliciesRepo(db).find(tenantId);
    return policy
      ? {
          enabled: true,
          payoutAtOrAbove: policy.payoutAtOrAbove === null ? null : formatKobo(policy.payoutAtOrAbove),
          newDestination: policy.newDestination,
          expiresAfterSeconds: policy.expiresAfterSeconds,
          transferAbove: policy.transferAbove === null ? null : formatKobo(policy.transferAbove),
          sweeps: policy.sweeps,
          batchTotalAtOrAbove: policy.batchTotalAtOrAbove === null ? null : formatKobo(policy.batchTotalAtOrAbove),
          batchItemsAtOrAbove: policy.batchItemsAtOrAbove,
          updatedAt: policy.updatedAt.toISOString(),
        }
      : {
          enabled: false,
          payoutAtOrAbove: null,
          newDestination: false,
          expiresAfterSeconds: DEFAULT_APPROVAL_EXPIRY_SECONDS,
          transferAbove: null,
          sweeps: false,
          batchTotalAtOrAbove: null,
          batchItemsAtOrAbove: null,
          updatedAt: null,
        };
  }

  return {
    view,

    /** Sets the policy (payouts made from now on are judged by it; those waiting keep their expiry); audited. */
    async put(actor: AuditActor, policy: PutApprovalPolicyBody): Promise<ApprovalPolicyView> {
      await db.transaction(async (trx) => {
        await createApprovalPoliciesRepo(trx).put(actor.tenantId, policy, actor.id);
        await createAuditLog(trx).record(
          actor,
          'approval_policy.set',
          { type: 'approval_policy', id: actor.tenantId },
          {
            payoutAtOrAbove: policy.payoutAtOrAbove === null ? null : formatKobo(policy.payoutAtOrAbove),
            newDestination: policy.newDestination,
            expiresAfterSeconds: policy.expiresAfterSeconds,
            transferAbove: policy.transferAbove === null ? null : formatKobo(policy.transferAbove),
            sweeps: policy.sweeps,
            batchTotalAtOrAbove: policy.batchTotalAtOrAbove === null ? null : formatKobo(policy.batchTotalAtOrAbove),
            batchItemsAtOrAbove: policy.batchItemsAtOrAbove,
          },
        );
      });
      return view(actor.tenantId);
    },

    /** Turns the policy off: payouts run at once again (those waiting still wait for a decision or their expiry); audited. */
    async remove(actor: AuditActor): Promise<void> {
      await db.transaction(async (trx) => {
        if (await createApprovalPoliciesRepo(trx).remove(actor.tenantId))
          await createAuditLog(trx).record(actor, 'approval_policy.removed', { type: 'approval_policy', id: actor.tenantId });
      });
    },
  };
}

export type ApprovalPoliciesService = ReturnType<typeof createApprovalPoliciesService>;
