import type { DbOrTrx } from '../db';
import { koboFromDb } from '../money';
import type { ApprovalPolicy } from '../policies/payout-approval/payout-approval';

interface ApprovalPolicyRow {
  payout_at_or_above: string | null;
  new_destination: boolean;
  expires_after_seconds: number;
  updated_at: Date;
}

export interface StoredApprovalPolicy extends ApprovalPolicy {
  updatedAt: Date;
}

export function createApprovalPoliciesRepo(db: DbOrTrx) {
  return {
    async find(tenantId: string): Promise<StoredApprovalPolicy | undefined> {
      const row: ApprovalPolicyRow | undefined = await db('approval_policies')
        .where({ tenant_id: tenantId })
        .first('payout_at_or_above', 'new_destination', 'expires_after_seconds', 'updated_at');
      return row
        ? {
            payoutAtOrAbove: row.payout_at_or_above === null ? null : koboFromDb(row.payout_at_or_above),
            newDestination: row.new_destination,
            expiresAfterSeconds: row.expires_after_seconds,
            updatedAt: row.updated_at,
          }
        : undefined;
    },

    async put(tenantId: string, policy: ApprovalPolicy, userId: string): Promise<void> {
      const row = {
        tenant_id: tenantId,
        payout_at_or_above: policy.payoutAtOrAbove?.toString() ?? null,
        new_destination: policy.newDestination,
        expires_after_seconds: policy.expiresAfterSeconds,
        updated_by: userId,
        updated_at: db.fn.now(),
      };
      await db('approval_policies').insert(row).onConflict('tenant_id').merge();
    },

    async remove(tenantId: string): Promise<boolean> {
      return (await db('approval_policies').where({ tenant_id: tenantId }).delete()) > 0;
    },
  };
}
