/** The sandbox's test values (README table): the last digits of an account number or NIN pick the outcome. */

export type TransferFinalStatus = 'SUCCESS' | 'PAYMENT_FAILED';

export interface TransferScript {
  final: TransferFinalStatus;
  /** at_first_check: PROCESSING until the first status check; after_processing_time: on a timer. */
  settles: 'at_first_check' | 'after_processing_time';
  refundsAfterSuccess: boolean;
  /** The transfer is recorded but the submit response is withheld until the caller has timed out. */
  holdsSubmitResponse: boolean;
}

const PLAIN: TransferScript = { final: 'SUCCESS', settles: 'at_first_check', refundsAfterSuccess: false, holdsSubmitResponse: false };

/** submissionNumber counts the submissions of the same base reference, starting at 1. */
export function transferScript(accountNumber: string, submissionNumber: number): TransferScript {
  if (accountNumber.endsWith('1111')) return { ...PLAIN, final: 'PAYMENT_FAILED' };
  if (accountNumber.endsWith('2222')) return { ...PLAIN, final: submissionNumber <= 2 ? 'PAYMENT_FAILED' : 'SUCCESS' };
  if (accountNumber.endsWith('3333')) return { ...PLAIN, refundsAfterSuccess: true };
  if (accountNumber.endsWith('4444')) return { ...PLAIN, holdsSubmitResponse: true };
  if (accountNumber.endsWith('5555')) return { ...PLAIN, settles: 'after_processing_time' };
  return PLAIN;
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
