/** The sandbox's test values (docs/sandbox.md, "Magic values"): the last digits of an account number or NIN pick the outcome. */

import type { Config } from '../config';
import type { TransferProfile } from './transfer-profiles';

/** Long enough to prove a settlement survives a transfer stuck for days; POST /sandbox/transfers/:reference/settle ends it sooner. */
const STUCK_PROCESSING_MS = 3 * 24 * 3_600_000;

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
export function magicTransferProfile(accountNumber: string, config: Pick<Config, 'SANDBOX_PROCESSING_TIME'>): Partial<TransferProfile> {
  const slow = config.SANDBOX_PROCESSING_TIME;
  const suffix = accountNumber.slice(-4);
  switch (suffix) {
    case '1111':
      return { final: 'PAYMENT_FAILED' };
    case '2222':
      return { failFirstSubmissions: 2 };
    case '3333':
      return { refundAfterSuccess: true };
    case '4444':
      return { submitAnswer: 'timeout' };
    case '5555':
      return { processingMs: slow };
    case '6666':
      return { submitAnswer: 'timeout', lookupLagMs: slow, duplicateReference: 'conflict', processingMs: 0 };
    case '7777':
      return { processingMs: STUCK_PROCESSING_MS };
    case '8888':
      return { failFirstSubmissions: 1, refundAfterFailure: true };
    case '0909':
      return { submitAnswer: 'pending_code', processingMs: 0 };
    case '4040':
      return { submitAnswer: 'error_after_recording', hiddenLookups: 1, processingMs: 0 };
    case '9696':
      return { submitAnswer: 'error_after_recording', lookupLagMs: LONG_LOOKUP_LAG_FACTOR * slow, processingMs: 0 };
    case '4290':
      return { outage: { answer: '429', durationMs: slow, retryAfterSeconds: 1 } };
    case '5030':
      return { outage: { answer: '503', durationMs: slow, retryAfterSeconds: 0 } };
    case '5020':
      return { outage: { answer: 'html', durationMs: slow, retryAfterSeconds: 0 } };
    case '3030':
      return { refundAfterSuccess: true, refundLookupLagMs: slow };
    case '3300':
      return { refundAfterSuccess: true, webhooks: 'duplicated_out_of_order' };
    default:
      return {};
  }
}

export function nameLookupFinds(accountNumber: string): boolean {
  return !accountNumber.endsWith('9999');
}

export type NinOutcome = 'unavailable' | 'not_verified' | 'verified';

/** For a NIN already known to be 11 digits; "unavailable" wins over "not_verified". */
export function ninOutcome(nin: string): NinOutcome {
  if (nin.startsWith('000')) return 'unavailable';
  if (nin.endsWith('99')) return 'not_verified';
  return 'verified';
}
