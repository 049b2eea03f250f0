import { formatKobo, type Kobo } from '../money';
import type { FundsSource } from './ledger.types';

/** Why money on an account is held: a KYC limit (single credit or balance), or a dynamic account's mismatch to return. */
export type HoldKind = 'single_credit' | 'balance' | 'amount_mismatch';

/** An account's money as a refused payout found it. */
export interface FundsStanding {
  ledgerBalance: Kobo;
  pendingCredits: Kobo;
  heldBalance: Kobo;
  /** The kinds of the account's open holds. */
  holdKinds: HoldKind[];
}

/** What an `insufficient funds` refusal adds when held money is part of why: naira strings, as the API speaks. */
export interface HeldShortfall {
  available: string;
  held: string;
  reason: string;
}

const KYC_LIMITS = "held by the customer's KYC limits";
const MISMATCH = "to return to the payer: a dynamic account's mismatched payment";

/**
 * The explanation of a payout refused for its funds: what the account may spend now under `from` (never below
 * zero), what is held, and what holds it; undefined when nothing is held, so held money is no part of why.
 */
export function heldShortfall(account: FundsStanding, from: FundsSource): HeldShortfall | undefined {
  if (account.heldBalance <= 0n) return undefined;
  const spendable = account.ledgerBalance - account.heldBalance - (from === 'available' ? account.pendingCredits : 0n);
  const byLimits = account.holdKinds.some((kind) => kind !== 'amount_mismatch');
  const byMismatch = account.holdKinds.includes('amount_mismatch');
  const reason = byLimits && byMismatch ? `${KYC_LIMITS} and ${MISMATCH}` : byMismatch ? `held ${MISMATCH}` : KYC_LIMITS;
  return { available: formatKobo(spendable > 0n ? spendable : 0n), held: formatKobo(account.heldBalance), reason };
}
