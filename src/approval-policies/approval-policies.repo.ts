import type { DbOrTrx } from '../db';
import { koboFromDb } from '../money';
import type { BatchApprovalPolicy } from '../policies/batch-approval/batch-approval';
import type { ApprovalPolicy } from '../policies/payout-approval/payout-approval';
import type { TransferAndSweepApprovalPolicy } from '../policies/payout-approval/transfer-and-sweep-approval';

interface ApprovalPolicyRow {
  payout_at_or_above: string | null;
  new_destination: boolean;
  expires_after_seconds: number;
  transfer_above: string | null;
  sweeps: boolean;
  batch_total_at_or_above: string | null;
  batch_items_at_or_above: number | null;
  updated_at: Date;
}

/** Every rule of the policy: a payout's, a transfer's and a sweep's, and a settlement batch's. */
export type FullApprovalPolicy = ApprovalPolicy & TransferAndSweepApprovalPolicy & BatchApprovalPolicy;

export interface StoredApprovalPolicy extends FullApprovalPolicy {
  updatedAt: Date;
}

export function createApprovalPoliciesRepo(db: DbOrTrx) {
  return {
    async find(tenantId: string): Promise<StoredApprovalPolicy | undefined> {
      const row: ApprovalPolicyRow | undefined = await db('approval_policies')
        .where({ tenant_id: tenantId })
        .first(
          'payout_at_or_above',
          'new_destination',
          'expires_after_seconds',
          'transfer_above',
          'sweeps',
          'batch_total_at_or_above',
          'batch_items_at_or_above',
          'updated_at',
        );
      return row
        ? {
            payoutAtOrAbove: row.payout_at_or_above === null ? null : koboFromDb(row.payout_at_or_above),
            newDestination: row.new_destination,
            expiresAfterSeconds: row.expires_after_seconds,
            transferAbove: row.transfer_above === null ? null : koboFromDb(row.transfer_above),
            sweeps: row.sweeps,
            batchTotalAtOrAbove: row.batch_total_at_or_above === null ? null : koboFromDb(row.batch_total_at_or_above),
            batchItemsAtOrAbove: row.batch_items_at_or_above,
            updatedAt: row.updated_at,
          }
        : undefined;
    },

    async put(tenantId: string, policy: FullApprovalPolicy, userId: string): Promise<void> {
      const row = {
        tenant_id: tenantId,
        payout_at_or_above: policy.payoutAtOrAbove?.toString() ?? null,
        new_destination: policy.newDestination,
        expires_after_seconds: policy.expiresAfterSeconds,
        transfer_above: policy.transferAbove?.toString() ?? null,
        sweeps: policy.sweeps,
        batch_total_at_or_above: policy.batchTotalAtOrAbove?.toString() ?? null,
        batch_items_at_or_above: policy.batchItemsAtOrAbove,
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
