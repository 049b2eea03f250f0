import type { Kobo } from '../../money';

/**
 * Whether a payout waits for a second person's approval, under the tenant's approval policy (none: the policy is
 * off and every payout runs at once). A payout at or above the policy's amount waits, and so does the first payout
 * to a destination the tenant has never paid, when the policy asks for that; the decision names every reason that
 * applies, in this order.
 */
export interface ApprovalPolicy {
  /** Payouts of at least this much wait (null: no amount makes one wait). */
  payoutAtOrAbove: Kobo | null;
  /** The first payout to a bank account the tenant has never paid waits. */
  newDestination: boolean;
  /** How long a payout waits before it expires and its money is released. */
  expiresAfterSeconds: number;
}

/**
 * Why a payout waits; `velocity`: a velocity rule sent it to review (see policies/velocity), whatever this policy says;
 * `balance_sweep`: a balance sweep made it under a policy that holds sweeps (see transfer-and-sweep-approval).
 */
export const APPROVAL_REASONS = ['amount', 'new_destination', 'velocity', 'balance_sweep'] as const;
export type ApprovalReason = (typeof APPROVAL_REASONS)[number];

export const DEFAULT_APPROVAL_EXPIRY_SECONDS = 24 * 60 * 60;

export type ApprovalDecision = { required: false } | { required: true; reasons: ApprovalReason[]; expiresAfterSeconds: number };

export function payoutApproval(
  policy: ApprovalPolicy | undefined,
  payout: { amount: Kobo; firstToDestination: boolean },
): ApprovalDecision {
  if (!policy) return { required: false };
  const reasons: ApprovalReason[] = [];
  if (policy.payoutAtOrAbove !== null && payout.amount >= policy.payoutAtOrAbove) reasons.push('amount');
  if (policy.newDestination && payout.firstToDestination) reasons.push('new_destination');
  return reasons.length === 0 ? { required: false } : { required: true, reasons, expiresAfterSeconds: policy.expiresAfterSeconds };
}
