import type { Config } from '../config';
import { baseReference } from './attempt-references';
import { TRANSFER_ENDINGS } from './magic-values';

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
  /** The first N submissions of each reference are refused as duplicates (HTTP 409, or 400 code 26 when
   *  `duplicateReference` is `described`) although nothing was recorded: a dedup index answering for a
   *  reference the provider never stored. Lookups say "not found"; a later submission is taken. */
  falseDuplicates: number;
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
interface ProfileMatch {
  referencePrefix?: string | undefined;
  accountNumber?: string | undefined;
}

export interface ProfileRule {
  id: number;
  match: ProfileMatch;
  profile: Partial<TransferProfile>;
}

function baseProfile(config: Config): TransferProfile {
  return {
    final: 'SUCCESS',
    failFirstSubmissions: 0,
    processingMs: null,
    submitAnswer: 'normal',
    duplicateReference: config.SANDBOX_DUPLICATE_REFERENCE,
    falseDuplicates: 0,
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

/** Long enough to prove a settlement survives a transfer stuck for days; POST /sandbox/transfers/:reference/settle ends it sooner. */
const STUCK_PROCESSING_MS = 3 * 24 * 3_600_000;

/** Submissions 4099 refuses as duplicates: every one a settlement could make. */
const NEVER_TAKEN = 1_000_000;

/**
 * The long lookup lag of 9696, in SANDBOX_PROCESSING_TIMEs: 6 minutes at the default, past the service's
 * default 5-minute "not found" grace (a NIP status can stay unknown for half an hour).
 */
const LONG_LOOKUP_LAG_FACTOR = 12;

/**
 * What the last four digits of a destination account number change from the plain profile (success at
 * the first status check). Every delay is SANDBOX_PROCESSING_TIME or SANDBOX_REFUND_DELAY, so tests can
 * shorten them all at once. A transfer whose submit answer hides it (6666, 0909, 4040) goes through at
 * once whoever asks, as a real one would: a service that takes it for failed pays twice. 9696 hides it
 * longer than the service's grace, so only asking with the same reference again can find it.
 */
function magicTransferProfile(accountNumber: string, config: Pick<Config, 'SANDBOX_PROCESSING_TIME'>): Partial<TransferProfile> {
  const slow = config.SANDBOX_PROCESSING_TIME;
  const suffix = accountNumber.slice(-4);
  switch (suffix) {
    case TRANSFER_ENDINGS.failsEverySubmission:
      return { final: 'PAYMENT_FAILED' };
    case TRANSFER_ENDINGS.failsTwiceThenSucceeds:
      return { failFirstSubmissions: 2 };
    case TRANSFER_ENDINGS.refundedAfterSuccess:
      return { refundAfterSuccess: true };
    case TRANSFER_ENDINGS.submitTimesOut:
      return { submitAnswer: 'timeout' };
    case TRANSFER_ENDINGS.processingThenSucceeds:
      return { processingMs: slow };
    case TRANSFER_ENDINGS.hiddenAfterTimeout:
      return { submitAnswer: 'timeout', lookupLagMs: slow, duplicateReference: 'conflict', processingMs: 0 };
    case TRANSFER_ENDINGS.stuckProcessing:
      return { processingMs: STUCK_PROCESSING_MS };
    case TRANSFER_ENDINGS.failedAttemptRefunded:
      return { failFirstSubmissions: 1, refundAfterFailure: true };
    case TRANSFER_ENDINGS.pendingCode:
      return { submitAnswer: 'pending_code', processingMs: 0 };
    case TRANSFER_ENDINGS.falseDuplicateOnce:
      return { falseDuplicates: 1, processingMs: 0 };
    case TRANSFER_ENDINGS.alwaysFalseDuplicate:
      return { falseDuplicates: NEVER_TAKEN };
    case TRANSFER_ENDINGS.errorAfterRecording:
      return { submitAnswer: 'error_after_recording', hiddenLookups: 1, processingMs: 0 };
    case TRANSFER_ENDINGS.hiddenPastGrace:
      return { submitAnswer: 'error_after_recording', lookupLagMs: LONG_LOOKUP_LAG_FACTOR * slow, processingMs: 0 };
    case TRANSFER_ENDINGS.throttled:
      return { outage: { answer: '429', durationMs: slow, retryAfterSeconds: 1 } };
    case TRANSFER_ENDINGS.unavailable:
      return { outage: { answer: '503', durationMs: slow, retryAfterSeconds: 0 } };
    case TRANSFER_ENDINGS.gatewayPage:
      return { outage: { answer: 'html', durationMs: slow, retryAfterSeconds: 0 } };
    case TRANSFER_ENDINGS.refundedWhileLookupShowsSuccess:
      return { refundAfterSuccess: true, refundLookupLagMs: slow };
    case TRANSFER_ENDINGS.refundedWithWebhooksOutOfOrder:
      return { refundAfterSuccess: true, webhooks: 'duplicated_out_of_order' };
    default:
      return {};
  }
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
  let profile: TransferProfile = {
    ...baseProfile(config),
    ...(call.accountNumber ? magicTransferProfile(call.accountNumber, config) : {}),
  };
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
