import type { DbOrTrx } from '../db';
import type { VelocityVerdict } from '../velocity-rules/velocity-rules.access';
import type { PayoutApprovalStatus } from './payout-approvals.repo';
import type { ScheduledPayoutRecord } from './scheduled-payouts.repo';
import type { InitiationResult } from './settlement-initiation.repo';
import type { SettlementRecord } from './settlements.repo';

/**
 * A settle's answer: the settlement made (`pending`), the payout the approval policy holds (`awaiting_approval`, or what
 * became of it), or a payout scheduled for `scheduledFor` (`pending` until it starts; `cancelled` once cancelled).
 */
export type AcceptedSettlement = Pick<SettlementRecord, 'merchantTxRef' | 'amount' | 'currency' | 'accountRef' | 'metadata'> & {
  status: SettlementRecord['status'] | Exclude<PayoutApprovalStatus, 'approved'> | 'cancelled';
  schedule?: PayoutSchedule;
};

/** When a scheduled payout starts and where it stands. */
export type PayoutSchedule = Pick<ScheduledPayoutRecord, 'scheduledFor' | 'state' | 'refusal'>;

/** Runs inside the transaction that made the settlement, only when it made one (never on a replay). */
export type OnCreated = (trx: DbOrTrx, settlement: AcceptedSettlement) => Promise<void>;

export type VelocityRefusal = Extract<VelocityVerdict, { action: 'refuse' }>;

/** A velocity rule's verdict that makes no settlement: the payout is refused, or goes to review (held for approval). */
export type VelocityBail =
  | { kind: 'velocity_refused'; verdict: VelocityRefusal }
  | { kind: 'velocity_review'; verdict: Extract<VelocityVerdict, { action: 'review' }> };

/** Rolls a keyed initiation back when it made no settlement, carrying the reason out of the transaction. */
export class NothingMade extends Error {
  constructor(readonly result: InitiationResult | VelocityBail) {
    super(result.kind);
  }
}
