/**
 * The sandbox's test values (docs/sandbox.md, "Magic values") for name and identity lookups: the last digits of an account
 * number or NIN pick the outcome. A destination's transfer outcomes are its profile (transfer-profiles.ts).
 */

export function nameLookupFinds(accountNumber: string): boolean {
  return !accountNumber.endsWith('9999');
}

type NinOutcome = 'unavailable' | 'not_verified' | 'verified';

/** For a NIN already known to be 11 digits; "unavailable" wins over "not_verified". */
export function ninOutcome(nin: string): NinOutcome {
  if (nin.startsWith('000')) return 'unavailable';
  if (nin.endsWith('99')) return 'not_verified';
  return 'verified';
}
