import { HELD_TO_RETURN_REASONS } from '../policies/dynamic-account-amount/amount-policy';
import { CREDIT_LIMIT_REASONS } from '../policies/kyc-limits/credit-limits';

/**
 * Every kind of reservation the ledger keeps, declared once: money on an account that may not be spent until the
 * reservation is posted (it becomes the transaction it was kept for), released, or expires. A new kind (a lien, a
 * payout awaiting approval) is one entry here; the feature that reserves it calls the ledger's reservations module
 * with it. ledger:verify refuses a reservation of a kind or reason not declared here.
 */
export const RESERVATION_KINDS = {
  /**
   * The part of a credit over the customer's KYC limits (reason: which limit, with its amount), kept for the payer:
   * released when the limits allow it, or posted by the settlement debit that returns it to its payer.
   */
  kyc_limit: { reasons: CREDIT_LIMIT_REASONS, heldCredit: true, meaning: "over the customer's KYC limits" },
  /** A dynamic account's mismatched payment, held whole, posted by the settlement debit that returns it to its payer. */
  payment_mismatch: {
    reasons: HELD_TO_RETURN_REASONS,
    heldCredit: true,
    meaning: "a dynamic account's mismatched payment, to return to its payer",
  },
} as const satisfies Record<string, ReservationKindDeclaration>;

interface ReservationKindDeclaration {
  /** What money of the kind is, in a few words, for the API's description of the reserved breakdown. */
  meaning: string;
  /** Why a reservation of the kind was made; the reason is stored with it and shown where the kind is. */
  reasons: readonly string[];
  /**
   * The reservation holds a credit posted to the account (its owner is the credit's entry): the credit is judged
   * again if it is reversed or taken back (what was kept of it is released), and posting it is returning the money
   * to its payer, a settlement debit that is no payout of the customer's (it does not count toward its daily limit).
   */
  heldCredit: boolean;
}

export type ReservationKind = keyof typeof RESERVATION_KINDS;
export type ReservationReason<Kind extends ReservationKind = ReservationKind> = (typeof RESERVATION_KINDS)[Kind]['reasons'][number];

export const RESERVATION_KIND_NAMES = Object.keys(RESERVATION_KINDS) as ReservationKind[];

/** The kinds whose reservations hold a credit (see heldCredit). */
export const HELD_CREDIT_KINDS = RESERVATION_KIND_NAMES.filter((kind) => RESERVATION_KINDS[kind].heldCredit);

/** A list of kinds as an SQL list literal, e.g. for `kind IN (...)`: the names are this module's constants. */
export function kindsSql(kinds: readonly ReservationKind[]): string {
  return `(${kinds.map((kind) => `'${kind}'`).join(', ')})`;
}

/** The kinds whose reservations hold a credit, as an SQL list. */
export const HELD_CREDIT_KINDS_SQL = kindsSql(HELD_CREDIT_KINDS);

/** Every (kind, reason) declared, as SQL VALUES rows for ledger:verify. */
export function declaredReasonsSql(): string {
  return RESERVATION_KIND_NAMES.flatMap((kind) => RESERVATION_KINDS[kind].reasons.map((reason) => `('${kind}', '${reason}')`)).join(', ');
}
