/**
 * The sandbox's bad-day catalogue as the resilience tests drive it: every magic destination of a
 * settlement and every shape of a payment's lookup, with what must come of each whatever else goes wrong.
 */

export type SettlementStatus = 'success' | 'failed' | 'refunded' | 'processing';

/** Every bad day of the sandbox's magic destinations, and what must come of it whatever else goes wrong. */
export const SETTLEMENT_CASES: Array<{ accountNumber: string; status: SettlementStatus; payouts: number; standing: number; what: string }> = [
  { accountNumber: '0123456789', status: 'success', payouts: 1, standing: 1, what: 'plain' },
  { accountNumber: '0000001111', status: 'failed', payouts: 0, standing: 0, what: 'every attempt fails' },
  { accountNumber: '0000002222', status: 'success', payouts: 1, standing: 1, what: 'two failed attempts, then paid' },
  { accountNumber: '0000003333', status: 'refunded', payouts: 1, standing: 0, what: 'refunded after success' },
  { accountNumber: '0000004444', status: 'success', payouts: 1, standing: 1, what: 'submit times out although accepted' },
  { accountNumber: '0000005555', status: 'success', payouts: 1, standing: 1, what: 'PROCESSING, then paid' },
  { accountNumber: '0000006666', status: 'success', payouts: 1, standing: 1, what: 'timeout, lookup lag, 409 duplicate' },
  { accountNumber: '0000007777', status: 'processing', payouts: 0, standing: 0, what: 'PROCESSING for days: waiting' },
  { accountNumber: '0000008888', status: 'success', payouts: 1, standing: 1, what: 'a failed attempt refunded, the next paid' },
  { accountNumber: '0000000909', status: 'success', payouts: 1, standing: 1, what: 'pending code 09' },
  { accountNumber: '0000004040', status: 'success', payouts: 1, standing: 1, what: 'unexplained 400, then not found once' },
  { accountNumber: '0000004091', status: 'success', payouts: 1, standing: 1, what: 'refused as a duplicate although never recorded, then probed' },
  { accountNumber: '0000009696', status: 'success', payouts: 1, standing: 1, what: 'unexplained 400, not found for longer than the grace' },
  { accountNumber: '0000004290', status: 'success', payouts: 1, standing: 1, what: '429 outage with Retry-After' },
  { accountNumber: '0000005030', status: 'success', payouts: 1, standing: 1, what: '503 outage' },
  { accountNumber: '0000005020', status: 'success', payouts: 1, standing: 1, what: 'HTML 502 outage' },
  { accountNumber: '0000003030', status: 'refunded', payouts: 1, standing: 0, what: 'payout_refund before the lookup agrees' },
  { accountNumber: '0000003300', status: 'refunded', payouts: 1, standing: 0, what: 'payout webhooks duplicated, out of order' },
];

/** Payments as the provider's lookup will tell them, and what the confirmation rules make of each. */
export const PAYMENT_CASES: Array<{ body: Record<string, unknown>; status: 'confirmed' | 'reversed' | 'provisional' }> = [
  { body: {}, status: 'confirmed' },
  { body: { lookupLagMs: 3_000 }, status: 'confirmed' },
  { body: { notFoundLookups: 2 }, status: 'confirmed' },
  { body: { processingMs: 4_000 }, status: 'confirmed' },
  { body: { status: 'PAYMENT_FAILED' }, status: 'reversed' },
  { body: { status: 'PROCESSING' }, status: 'provisional' },
];
