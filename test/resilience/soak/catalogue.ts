import { PAYMENT_CASES, SETTLEMENT_CASES } from '../bad-days';

/** A destination a settlement pays to, and how the sandbox treats a transfer to it. */
export interface DestinationCase {
  accountNumber: string;
  what: string;
  /** A bad-day profile set on the control route for this destination (none: a magic suffix decides). */
  profile?: Record<string, unknown>;
  /** PROCESSING for days: the settlement may legitimately still wait at the end. */
  waits: boolean;
  /** The provider takes a payout back (a refund finding is explained). */
  refunds: boolean;
}

/**
 * The bad days the control route can set that no magic suffix makes as such: together with the magic
 * destinations every profile field is used (final, failFirstSubmissions, processingMs, every
 * submitAnswer and duplicateReference, lookupLagMs, hiddenLookups, both refunds, refundLookupLagMs,
 * webhooks, outage).
 */
const PROFILE_CASES: DestinationCase[] = [
  {
    accountNumber: '9900001001',
    what: 'profile: submit times out, a repeat answered 400 "already exists"',
    profile: { submitAnswer: 'timeout', duplicateReference: 'described' },
    waits: false,
    refunds: false,
  },
  {
    accountNumber: '9900001002',
    what: 'profile: two lookups not found, then paid',
    profile: { hiddenLookups: 2, processingMs: 0 },
    waits: false,
    refunds: false,
  },
  {
    accountNumber: '9900001003',
    what: 'profile: lookup lag, PROCESSING, then paid',
    profile: { lookupLagMs: 2_000, processingMs: 3_000 },
    waits: false,
    refunds: false,
  },
  {
    accountNumber: '9900001004',
    what: 'profile: 503 outage, then every attempt fails and the failed debit is refunded',
    profile: { outage: { answer: '503', durationMs: 3_000, retryAfterSeconds: 0 }, final: 'PAYMENT_FAILED', refundAfterFailure: true },
    waits: false,
    refunds: false,
  },
  {
    accountNumber: '9900001005',
    what: 'profile: pending code 09, a repeat answered 409, PROCESSING',
    profile: { submitAnswer: 'pending_code', duplicateReference: 'conflict', processingMs: 2_000 },
    waits: false,
    refunds: false,
  },
  {
    accountNumber: '9900001006',
    what: 'profile: a failed attempt, then paid and refunded, webhooks duplicated out of order',
    profile: { failFirstSubmissions: 1, refundAfterSuccess: true, webhooks: 'duplicated_out_of_order' },
    waits: false,
    refunds: true,
  },
  {
    accountNumber: '9900001007',
    what: 'profile: unexplained 400 after recording, hidden once, refunded with the lookup lagging',
    profile: {
      submitAnswer: 'error_after_recording',
      hiddenLookups: 1,
      processingMs: 0,
      refundAfterSuccess: true,
      refundLookupLagMs: 3_000,
    },
    waits: false,
    refunds: true,
  },
  {
    accountNumber: '9900001008',
    what: 'profile: 429 outage with Retry-After 2, then paid',
    profile: { outage: { answer: '429', durationMs: 4_000, retryAfterSeconds: 2 } },
    waits: false,
    refunds: false,
  },
  // Longer than the soak's SETTLEMENT_NOT_FOUND_GRACE: "not found" for a while is not "failed".
  {
    accountNumber: '9900001009',
    what: 'profile: submit times out, lookups lag 15 s (past the not-found grace), paid at once',
    profile: { submitAnswer: 'timeout', lookupLagMs: 15_000, processingMs: 0 },
    waits: false,
    refunds: false,
  },
  {
    accountNumber: '9900001010',
    what: 'profile: unexplained 400 although recorded, lookups lag 15 s (past the not-found grace), paid at once',
    profile: { submitAnswer: 'error_after_recording', lookupLagMs: 15_000, processingMs: 0 },
    waits: false,
    refunds: false,
  },
];

/** Every magic destination and every control-route profile. */
export const DESTINATIONS: DestinationCase[] = [
  ...SETTLEMENT_CASES.map((testCase) => ({
    accountNumber: testCase.accountNumber,
    what: testCase.what,
    waits: testCase.status === 'processing',
    refunds: testCase.status === 'refunded',
  })),
  ...PROFILE_CASES,
];

/** How a payment arrives and what the provider's lookup says of it. */
export interface PaymentCase {
  what: string;
  /** Fields of POST /sandbox/payments. */
  body: Record<string, unknown>;
  /** PROCESSING for ever: the credit may legitimately stay provisional. */
  waits: boolean;
  /** Sent to an accountRef nobody provisioned. */
  misdirected?: boolean;
  /** The provider's lookup lags or hides it: a reversal for lack of confirmation (and its restoring) is explained. */
  delayed: boolean;
}

export const PAYMENTS: PaymentCase[] = [
  ...PAYMENT_CASES.map((testCase) => ({
    what: Object.keys(testCase.body).length ? JSON.stringify(testCase.body) : 'plain',
    body: testCase.body,
    waits: testCase.status === 'provisional',
    delayed: Object.keys(testCase.body).length > 0,
  })),
  { what: 'lookup lag past the confirmation window', body: { lookupLagMs: 30_000 }, waits: false, delayed: true },
  { what: 'webhook never sent (only reconciliation finds it)', body: { suppressWebhook: true }, waits: false, delayed: true },
  { what: 'misdirected to an unknown accountRef', body: {}, waits: false, misdirected: true, delayed: false },
];

/** The one payment of a race: the provider's lookup says it failed (its credit is reversed), or it was paid. */
export const RACE_PAYMENTS = {
  failed: { what: 'race: PAYMENT_FAILED at the provider', body: { status: 'PAYMENT_FAILED' }, waits: false, delayed: false },
  paid: { what: 'race: paid', body: {}, waits: false, delayed: false },
} satisfies Record<string, PaymentCase>;

/** The one payment into a dynamic account (its variance is the operation's, not the provider's). */
export const DYNAMIC_PAYMENT: PaymentCase = { what: 'dynamic account payment', body: {}, waits: false, delayed: false };

/** The one payment of a freeze for credits: it lands held, and is released when the freeze is lifted. */
export const FROZEN_PAYMENT: PaymentCase = { what: 'payment to a credit-frozen account', body: {}, waits: false, delayed: false };
