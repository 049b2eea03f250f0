import type { Kobo } from '../../money';

/**
 * Whether a settlement batch waits, as a whole, for a second person's approval under the tenant's approval policy
 * (none: the policy is off and every batch runs at once). A batch whose total (the items it would pay) is at or above
 * the policy's amount waits, and so does one of at least the policy's number of items; the decision names every
 * reason that applies, in this order.
 */
export interface BatchApprovalPolicy {
  /** Batches paying at least this much in all wait (null: no total makes one wait). */
  batchTotalAtOrAbove: Kobo | null;
  /** Batches of at least this many items wait (null: no count makes one wait). */
  batchItemsAtOrAbove: number | null;
  /** How long a batch waits before it expires and its money is released. */
  expiresAfterSeconds: number;
}

export const BATCH_APPROVAL_REASONS = ['total', 'item_count'] as const;
export type BatchApprovalReason = (typeof BATCH_APPROVAL_REASONS)[number];

export type BatchApprovalDecision = { required: false } | { required: true; reasons: BatchApprovalReason[]; expiresAfterSeconds: number };

export function batchApproval(policy: BatchApprovalPolicy | undefined, batch: { total: Kobo; items: number }): BatchApprovalDecision {
  if (!policy) return { required: false };
  const reasons: BatchApprovalReason[] = [];
  if (policy.batchTotalAtOrAbove !== null && batch.total >= policy.batchTotalAtOrAbove) reasons.push('total');
  if (policy.batchItemsAtOrAbove !== null && batch.items >= policy.batchItemsAtOrAbove) reasons.push('item_count');
  return reasons.length === 0 ? { required: false } : { required: true, reasons, expiresAfterSeconds: policy.expiresAfterSeconds };
}
