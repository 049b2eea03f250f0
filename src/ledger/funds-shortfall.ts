import { formatKobo, type Kobo } from '../money';
import type { FundsSource } from './ledger.types';

/** Why money on an account is held: a KYC limit (single credit or balance), or a dynamic account's mismatch to return. */
export type HoldKind = 'single_credit' | 'balance' | 'amount_mismatch';

/** An account's money as a refused payout found it. */
export interface FundsStanding {
  ledgerBalance: Kobo;
  pendingCredits: Kobo;
  heldBalance: Kobo;
  /** What the account may spend under the rule of the refused payout (ledger_spendable: never computed here). */
  spendable: Kobo;
  /** The kinds of the account's open holds. */
  holdKinds: HoldKind[];
}

/**
 * What an `insufficient funds` refusal adds when money on the account is there but may not be spent: naira strings,
 * as the API speaks. `pending` only when unconfirmed money is part of why (a transfer, or a settlement under
 * SETTLEMENT_FUNDS=available, spends only what the provider has confirmed).
 */
export interface FundsShortfall {
  available: string;
  held: string;
  pending?: string;
  reason: string;
}

const KYC_LIMITS = "held by the customer's KYC limits";
const MISMATCH = "to return to the payer: a dynamic account's mismatched payment";
const UNCONFIRMED = 'not yet confirmed by the provider';

/**
 * The explanation of a payout refused for its funds: what the account may spend now under `from` (never below
 * zero), what is held and what holds it, and what the provider has not confirmed yet when `from` spends only
 * confirmed money; undefined when neither held nor unconfirmed money is part of why.
 */
export function fundsShortfall(account: FundsStanding, from: FundsSource): FundsShortfall | undefined {
  const unconfirmed = from === 'available' && account.pendingCredits > 0n ? account.pendingCredits : 0n;
  if (account.heldBalance <= 0n && unconfirmed === 0n) return undefined;
  const byLimits = account.holdKinds.some((kind) => kind !== 'amount_mismatch');
  const byMismatch = account.holdKinds.includes('amount_mismatch');
  const held =
    account.heldBalance <= 0n
      ? []
      : [byLimits && byMismatch ? `${KYC_LIMITS} and ${MISMATCH}` : byMismatch ? `held ${MISMATCH}` : KYC_LIMITS];
  return {
    available: formatKobo(account.spendable > 0n ? account.spendable : 0n),
    held: formatKobo(account.heldBalance),
    ...(unconfirmed > 0n ? { pending: formatKobo(unconfirmed) } : {}),
    reason: [...held, ...(unconfirmed > 0n ? [UNCONFIRMED] : [])].join('; '),
  };
}
