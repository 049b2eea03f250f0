import type { Kobo } from '../../money';
import type { ApprovalDecision } from './payout-approval';

/**
 * The approval policy's rules for money no single payout request moves: a transfer between two of the tenant's
 * accounts, and the payouts its balance sweeps make. Absent (no policy), nothing waits.
 */
export interface TransferAndSweepApprovalPolicy {
  /** Transfers of more than this much wait (null: no amount makes one wait). */
  transferAbove: Kobo | null;
  /** Every payout a balance sweep makes waits. */
  sweeps: boolean;
  /** How long a transfer or a sweep's payout waits before it expires and its money is released. */
  expiresAfterSeconds: number;
}

export type TransferApprovalDecision = { required: false } | { required: true; expiresAfterSeconds: number };

/** A transfer waits when its amount is strictly above the policy's (one of exactly that amount moves at once). */
export function transferApproval(policy: TransferAndSweepApprovalPolicy | undefined, transfer: { amount: Kobo }): TransferApprovalDecision {
  if (!policy || policy.transferAbove === null || transfer.amount <= policy.transferAbove) return { required: false };
  return { required: true, expiresAfterSeconds: policy.expiresAfterSeconds };
}

/**
 * A balance sweep's payout waits, whatever its amount or destination, when the policy holds sweeps: it is held as a
 * payout is, for the reason `balance_sweep` alone (the payout rules judge payouts somebody asked for).
 */
export function sweepPayoutApproval(policy: TransferAndSweepApprovalPolicy | undefined): ApprovalDecision {
  if (!policy?.sweeps) return { required: false };
  return { required: true, reasons: ['balance_sweep'], expiresAfterSeconds: policy.expiresAfterSeconds };
}
