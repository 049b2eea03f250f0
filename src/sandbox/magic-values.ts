/**
 * The sandbox's test values (docs/sandbox.md, "Magic values"): the last digits of an account number or a
 * NIN pick the outcome of a transfer, a name lookup or an identity lookup. A destination's transfer outcome
 * becomes its profile in transfer-profiles.ts.
 */

/**
 * The last four digits of a destination account number that pick a transfer's outcome (docs/sandbox.md,
 * "Magic values"); transfer-profiles.ts turns each into its profile. Any other ending succeeds at the first
 * status check.
 */
export const TRANSFER_ENDINGS = {
  /** Every submission fails. */
  failsEverySubmission: '1111',
  /** The first two submissions fail, the third succeeds. */
  failsTwiceThenSucceeds: '2222',
  /** Succeeds, then the provider refunds it after SANDBOX_REFUND_DELAY. */
  refundedAfterSuccess: '3333',
  /** The submit call times out although the transfer was accepted; it succeeds. */
  submitTimesOut: '4444',
  /** PROCESSING for SANDBOX_PROCESSING_TIME, then success. */
  processingThenSucceeds: '5555',
  /** The submit times out although accepted; lookups say "not found" for a while; a repeat is answered 409. */
  hiddenAfterTimeout: '6666',
  /** PROCESSING for 3 days, then success. */
  stuckProcessing: '7777',
  /** The first submission fails and that failed attempt is refunded; the second succeeds. */
  failedAttemptRefunded: '8888',
  /** The submit answers HTTP 200 with the pending code 09; it goes through at once. */
  pendingCode: '0909',
  /** An unexplained HTTP 400 although recorded; its first lookup says "not found"; it has succeeded. */
  errorAfterRecording: '4040',
  /** An unexplained HTTP 400 (code 96) although recorded; "not found" past the service's grace. */
  hiddenPastGrace: '9696',
  /** The first submission of each reference is refused as a duplicate although nothing was recorded. */
  falseDuplicateOnce: '4091',
  /** Every submission is refused as a duplicate and nothing is ever recorded. */
  alwaysFalseDuplicate: '4099',
  /** 429 with Retry-After: 1 on every call about it for SANDBOX_PROCESSING_TIME; then success. */
  throttled: '4290',
  /** 503 (JSON) on every call about it for SANDBOX_PROCESSING_TIME; then success. */
  unavailable: '5030',
  /** A 502 HTML gateway page on every call about it for SANDBOX_PROCESSING_TIME; then success. */
  gatewayPage: '5020',
  /** Refunded while the lookup still shows SUCCESS. */
  refundedWhileLookupShowsSuccess: '3030',
  /** Refunded; payout webhooks duplicated and out of order. */
  refundedWithWebhooksOutOfOrder: '3300',
} as const;

/** A name lookup of an account number with this ending finds no account. */
export const NAME_NOT_FOUND_ENDING = '9999';
/** An identity lookup of a NIN starting so answers "unavailable" (this wins over the next). */
export const NIN_UNAVAILABLE_PREFIX = '000';
/** An identity lookup of a NIN ending so answers "not verified". */
export const NIN_NOT_VERIFIED_ENDING = '99';

export function nameLookupFinds(accountNumber: string): boolean {
  return !accountNumber.endsWith(NAME_NOT_FOUND_ENDING);
}

type NinOutcome = 'unavailable' | 'not_verified' | 'verified';

/** For a NIN already known to be 11 digits; "unavailable" wins over "not_verified". */
export function ninOutcome(nin: string): NinOutcome {
  if (nin.startsWith(NIN_UNAVAILABLE_PREFIX)) return 'unavailable';
  if (nin.endsWith(NIN_NOT_VERIFIED_ENDING)) return 'not_verified';
  return 'verified';
}
