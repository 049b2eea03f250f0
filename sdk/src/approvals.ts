import type { HeldPayoutStatus } from './api-types';

/**
 * Whether a settle's answer, or a transfer's state, is a payout (or a transfer between accounts) the tenant's approval
 * policy holds: waiting for a person's decision on the dashboard (`awaiting_approval`), or ended without paying
 * (`rejected`, `expired`). A settlement batch's answer or state is judged alike: a held batch waits, and ends unpaid, as a
 * whole.
 */
export function awaitsApproval(transfer: { status: string }): transfer is { status: 'awaiting_approval' } {
  return transfer.status === 'awaiting_approval';
}

/** Whether a held payout (or settlement batch) ended without paying: rejected by a person, or not decided before its expiry. */
export function endedUnapproved(transfer: { status: string }): transfer is { status: Exclude<HeldPayoutStatus, 'awaiting_approval'> } {
  return transfer.status === 'rejected' || transfer.status === 'expired';
}
