/**
 * The sandbox's bad-day catalogue as the resilience tests drive it: every magic destination of a
 * settlement and every shape of a payment's lookup, with what must come of each whatever else goes wrong.
 */
import { magicAccountNumber } from '../helpers/sandbox-values';

export type SettlementStatus = 'success' | 'failed' | 'refunded' | 'processing';

/** Every bad day of the sandbox's magic destinations, and what must come of it whatever else goes wrong. */
export const SETTLEMENT_CASES: Array<{ accountNumber: string; status: SettlementStatus; payouts: number; standing: number; what: string }> =
  [
    { accountNumber: '0123456789', status: 'success', payouts: 1, standing: 1, what: 'plain' },
    {
      accountNumber: magicAccountNumber('failsEverySubmission', '000000'),
      status: 'failed',
      payouts: 0,
      standing: 0,
      what: 'every attempt fails',
    },
    {
      accountNumber: magicAccountNumber('failsTwiceThenSucceeds', '000000'),
      status: 'success',
      payouts: 1,
      standing: 1,
      what: 'two failed attempts, then paid',
    },
    {
      accountNumber: magicAccountNumber('refundedAfterSuccess', '000000'),
      status: 'refunded',
      payouts: 1,
      standing: 0,
      what: 'refunded after success',
    },
    {
      accountNumber: magicAccountNumber('submitTimesOut', '000000'),
      status: 'success',
      payouts: 1,
      standing: 1,
      what: 'submit times out although accepted',
    },
    {
      accountNumber: magicAccountNumber('processingThenSucceeds', '000000'),
      status: 'success',
      payouts: 1,
      standing: 1,
      what: 'PROCESSING, then paid',
    },
    {
      accountNumber: magicAccountNumber('hiddenAfterTimeout', '000000'),
      status: 'success',
      payouts: 1,
      standing: 1,
      what: 'timeout, lookup lag, 409 duplicate',
    },
    {
      accountNumber: magicAccountNumber('stuckProcessing', '000000'),
      status: 'processing',
      payouts: 0,
      standing: 0,
      what: 'PROCESSING for days: waiting',
    },
    {
      accountNumber: magicAccountNumber('failedAttemptRefunded', '000000'),
      status: 'success',
      payouts: 1,
      standing: 1,
      what: 'a failed attempt refunded, the next paid',
    },
    { accountNumber: magicAccountNumber('pendingCode', '000000'), status: 'success', payouts: 1, standing: 1, what: 'pending code 09' },
    {
      accountNumber: magicAccountNumber('errorAfterRecording', '000000'),
      status: 'success',
      payouts: 1,
      standing: 1,
      what: 'unexplained 400, then not found once',
    },
    {
      accountNumber: magicAccountNumber('falseDuplicateOnce', '000000'),
      status: 'success',
      payouts: 1,
      standing: 1,
      what: 'refused as a duplicate although never recorded, then probed',
    },
    {
      accountNumber: magicAccountNumber('hiddenPastGrace', '000000'),
      status: 'success',
      payouts: 1,
      standing: 1,
      what: 'unexplained 400, not found for longer than the grace',
    },
    {
      accountNumber: magicAccountNumber('throttled', '000000'),
      status: 'success',
      payouts: 1,
      standing: 1,
      what: '429 outage with Retry-After',
    },
    { accountNumber: magicAccountNumber('unavailable', '000000'), status: 'success', payouts: 1, standing: 1, what: '503 outage' },
    { accountNumber: magicAccountNumber('gatewayPage', '000000'), status: 'success', payouts: 1, standing: 1, what: 'HTML 502 outage' },
    {
      accountNumber: magicAccountNumber('refundedWhileLookupShowsSuccess', '000000'),
      status: 'refunded',
      payouts: 1,
      standing: 0,
      what: 'payout_refund before the lookup agrees',
    },
    {
      accountNumber: magicAccountNumber('refundedWithWebhooksOutOfOrder', '000000'),
      status: 'refunded',
      payouts: 1,
      standing: 0,
      what: 'payout webhooks duplicated, out of order',
    },
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
