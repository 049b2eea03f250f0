import type { Config } from '../config';
import { baseReference } from './attempt-references';
import { magicTransferProfile } from './magic-values';

/**
 * How the simulated provider treats one transfer: the real provider's good and bad days. A profile is
 * resolved once per submission from the environment (SANDBOX_*), the destination's magic value and the
 * profiles set on the control route (later ones win), and kept on the transfer.
 */
export interface TransferProfile {
  /** Status the transfer ends in (after `failFirstSubmissions`). */
  final: 'SUCCESS' | 'PAYMENT_FAILED';
  /** The first N submissions of a base reference fail whatever `final` says. */
  failFirstSubmissions: number;
  /** null: PROCESSING until its first visible status check; otherwise settles on a timer after this long. */
  processingMs: number | null;
  /** How the submit call answers: normally; withheld until the caller times out; HTTP 200 with the
   *  NIP-style pending code 09; or an unexplained HTTP 400 (code 96). The transfer is recorded in every case. */
  submitAnswer: 'normal' | 'timeout' | 'pending_code' | 'error_after_recording';
  /** A repeated merchantTxRef: the original transfer (200), HTTP 409, or HTTP 400 saying the reference exists. */
  duplicateReference: 'original' | 'conflict' | 'described';
  /** The transfer exists but lookups answer "not found" for this long after it was accepted. */
  lookupLagMs: number;
  /** The first N lookups of the transfer answer "not found" (it succeeds after a lookup said it does not exist). */
  hiddenLookups: number;
  /** Lookups answer with this merchantTxRef in place of the transfer's own (an index that mixes transfers up); null: its own. */
  lookupAnswersFor: string | null;
  /** After success the provider reverses the transfer (REFUND, payout_refund) after SANDBOX_REFUND_DELAY. */
  refundAfterSuccess: boolean;
  /** After failure the provider returns the failed debit (REFUND, payout_refund) after SANDBOX_REFUND_DELAY. */
  refundAfterFailure: boolean;
  /** payout_refund is sent at once, but lookups keep showing the previous status this much longer. */
  refundLookupLagMs: number;
  /** duplicated_out_of_order: every payout webhook is sent twice (new request ids), and payout_success
   *  is held back 2 × SANDBOX_REFUND_DELAY, so it arrives after a payout_refund. */
  webhooks: 'normal' | 'duplicated_out_of_order';
  /** Every call about this transfer (submit, lookup, and the name lookup of its destination) fails so,
   *  from the first such call, for durationMs. */
  outage: Outage | null;
}

export interface Outage {
  answer: '429' | '503' | 'html';
  durationMs: number;
  /** Sent as Retry-After with a 429. */
  retryAfterSeconds: number;
}

/** Which transfers a control-route profile applies to: a merchantTxRef prefix, a destination, or (neither) every one. */
export interface ProfileMatch {
  referencePrefix?: string | undefined;
  accountNumber?: string | undefined;
}

export interface ProfileRule {
  id: number;
  match: ProfileMatch;
  profile: Partial<TransferProfile>;
}

export function baseProfile(config: Config): TransferProfile {
  return {
    final: 'SUCCESS',
    failFirstSubmissions: 0,
    processingMs: null,
    submitAnswer: 'normal',
    duplicateReference: config.SANDBOX_DUPLICATE_REFERENCE,
    lookupLagMs: config.SANDBOX_LOOKUP_LAG,
    hiddenLookups: 0,
    lookupAnswersFor: null,
    refundAfterSuccess: false,
    refundAfterFailure: false,
    refundLookupLagMs: 0,
    webhooks: 'normal',
    outage: null,
  };
}

function matches(match: ProfileMatch, call: { reference?: string | undefined; accountNumber?: string | undefined }): boolean {
  if (match.referencePrefix !== undefined && !(call.reference ?? '').startsWith(match.referencePrefix)) return false;
  if (match.accountNumber !== undefined && call.accountNumber !== match.accountNumber) return false;
  return true;
}

/**
 * The profile of a call. A lookup carries no destination, so it is matched through the profile its
 * base reference was submitted with (`known`), else by reference prefix alone.
 */
export function resolveProfile(
  config: Config,
  rules: ProfileRule[],
  call: { reference?: string | undefined; accountNumber?: string | undefined },
): TransferProfile {
  let profile: TransferProfile = { ...baseProfile(config), ...(call.accountNumber ? magicTransferProfile(call.accountNumber, config) : {}) };
  for (const rule of rules) {
    if (matches(rule.match, call)) profile = { ...profile, ...rule.profile };
  }
  return profile;
}

/** The key an outage's clock runs under: the base reference, or the destination for name lookups. */
export function outageKey(call: { reference?: string | undefined; accountNumber?: string | undefined }): string | null {
  if (call.reference) return `ref:${baseReference(call.reference)}`;
  if (call.accountNumber) return `dest:${call.accountNumber}`;
  return null;
}
