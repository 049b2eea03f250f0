import { NAME_NOT_FOUND_ENDING, NIN_NOT_VERIFIED_ENDING, NIN_UNAVAILABLE_PREFIX, TRANSFER_ENDINGS } from '../../src/sandbox/magic-values';

/** A transfer outcome the sandbox picks by the destination's account number (docs/sandbox.md, "Magic values"). */
export type MagicTransfer = keyof typeof TRANSFER_ENDINGS;

/**
 * A destination account number whose ending picks `outcome` at the sandbox (a transfer's bad day, or
 * `nameNotFound`: its name lookup finds no account); the six-digit prefix keeps tests' destinations apart.
 */
export function magicAccountNumber(outcome: MagicTransfer | 'nameNotFound', prefix = '012345'): string {
  return `${prefix}${outcome === 'nameNotFound' ? NAME_NOT_FOUND_ENDING : TRANSFER_ENDINGS[outcome]}`;
}

/** A NIN the sandbox's identity lookup answers "unavailable" for (503), whatever its other digits (eight follow the prefix). */
export const unavailableNin = (digits: string): string => `${NIN_UNAVAILABLE_PREFIX}${digits}`;

/** A NIN the sandbox's identity lookup answers `verified: false` for (nine digits precede the ending). */
export const unverifiedNin = (digits: string): string => `${digits}${NIN_NOT_VERIFIED_ENDING}`;
