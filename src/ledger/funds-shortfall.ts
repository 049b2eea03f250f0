import { formatKobo, type Kobo } from '../money';
import type { FundsSource } from './ledger.types';
import { RESERVATION_KIND_NAMES, RESERVATION_KINDS, type ReservationKind } from './reservation-kinds';

/** An account's money as a refused payout found it. */
export interface FundsStanding {
  ledgerBalance: Kobo;
  pendingCredits: Kobo;
  heldBalance: Kobo;
  /** What the account may spend under the rule of the refused payout (ledger_spendable: never computed here). */
  spendable: Kobo;
  /** The kinds of the account's open reservations. */
  holdKinds: ReservationKind[];
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

const UNCONFIRMED = 'not yet confirmed by the provider';

/**
 * The explanation of a payout refused for its funds: what the account may spend now under `from` (never below
 * zero), what is held and what holds it (each kind holding money in its declaration's words, `heldFor`, in the
 * order the kinds are declared), and what the provider has not confirmed yet when `from` spends only
 * confirmed money; undefined when neither held nor unconfirmed money is part of why.
 */
export function fundsShortfall(account: FundsStanding, from: FundsSource): FundsShortfall | undefined {
  const unconfirmed = from === 'available' && account.pendingCredits > 0n ? account.pendingCredits : 0n;
  if (account.heldBalance <= 0n && unconfirmed === 0n) return undefined;
  const holding = RESERVATION_KIND_NAMES.filter((kind) => account.holdKinds.includes(kind));
  const heldFor = holding.map((kind) => RESERVATION_KINDS[kind].heldFor).join(' and ');
  const held = account.heldBalance <= 0n ? [] : [heldFor ? `held ${heldFor}` : 'held'];
  return {
    available: formatKobo(account.spendable > 0n ? account.spendable : 0n),
    held: formatKobo(account.heldBalance),
    ...(unconfirmed > 0n ? { pending: formatKobo(unconfirmed) } : {}),
    reason: [...held, ...(unconfirmed > 0n ? [UNCONFIRMED] : [])].join('; '),
  };
}
