import { HELD_TO_RETURN_REASONS } from '../policies/dynamic-account-amount/amount-policy';
import { CREDIT_LIMIT_REASONS } from '../policies/kyc-limits/credit-limits';

/**
 * Every kind of reservation the ledger keeps, declared once: money on an account that may not be spent until the
 * reservation is posted (it becomes the transaction it was kept for), released, or expires. A new kind (a lien, a
 * payout awaiting approval) is one entry here; the feature that reserves it calls the ledger's reservations module
 * with it (reserve, release, post and ofOwner take the locks they need). ledger:verify refuses a reservation of a
 * kind or reason not declared here, and a release whose reason its kind does not declare.
 *
 * `reasons` and `releaseReasons` are closed lists a program chooses from. A free-text reason a person gives (an
 * operator's "why" when releasing, a note when placing) goes to the audit entry and the change's `note`, never to
 * a declared reason.
 */
export const RESERVATION_KINDS = {
  /**
   * The part of a credit over the customer's KYC limits (reason: which limit, with its amount), kept for the payer:
   * released when the limits allow it (a tier rise, new limits), by an operator, or when the credit is reversed;
   * posted by the settlement debit that returns it to its payer.
   */
  kyc_limit: {
    reasons: CREDIT_LIMIT_REASONS,
    releaseReasons: ['tier_raised', 'operator', 'credit_reversed'],
    heldCredit: true,
    queued: true,
    meaning: "over the customer's KYC limits",
    heldFor: "by the customer's KYC limits",
  },
  /**
   * A dynamic account's mismatched payment, held whole, posted by the settlement debit that returns it to its payer;
   * released by an operator or when the credit is reversed.
   */
  payment_mismatch: {
    reasons: HELD_TO_RETURN_REASONS,
    releaseReasons: ['operator', 'credit_reversed'],
    heldCredit: true,
    queued: true,
    meaning: "a dynamic account's mismatched payment, to return to its payer",
    heldFor: "to return to the payer: a dynamic account's mismatched payment",
  },
  /**
   * Money an operator or the tenant sets aside on an account for a claim on it (its owner: the lien's id): lifted
   * (released) by them, or released when it expires. Posted by nothing: a lien never becomes a transaction.
   */
  lien: {
    reasons: ['regulatory_order', 'fraud_review', 'dispute', 'debt_recovery'],
    releaseReasons: ['lifted'],
    heldCredit: false,
    queued: false,
    meaning: 'placed on the account by an operator or the tenant',
    heldFor: 'by a lien on the account',
  },
  /**
   * A credit to an account frozen for credits (its owner: the credit's entry), held whole: the payer's bank has taken
   * the money, so it lands, but the account may not spend it until the freeze is lifted (released then).
   */
  credit_freeze: {
    reasons: ['account_frozen'],
    releaseReasons: ['unfrozen', 'credit_reversed'],
    heldCredit: true,
    queued: false,
    meaning: 'a credit to an account frozen for credits',
    heldFor: 'by a freeze on the account',
  },
  /**
   * A credit past one of the tenant's velocity rules over credits (its owner: the credit's entry), held whole: the
   * payer's bank has taken the money, so it lands, but the account may not spend it until an operator releases it from
   * the held-money queue (or returns it to its payer). The reservation's note is the rule's message.
   */
  velocity_hold: {
    reasons: ['velocity_rule'],
    releaseReasons: ['operator', 'credit_reversed'],
    heldCredit: true,
    queued: true,
    meaning: "a credit past a velocity rule of the tenant's",
    heldFor: "by a velocity rule of the tenant's",
  },
  /**
   * A payout the tenant's approval policy holds for a second person (owner: the approval): posted by the settlement
   * debit it becomes once approved, released when rejected, expired when nobody decided in time.
   */
  payout_approval: {
    reasons: ['awaiting_approval'],
    releaseReasons: ['rejected'],
    heldCredit: false,
    queued: false,
    meaning: 'payouts awaiting approval',
    heldFor: 'for payouts awaiting approval',
  },
  /**
   * A transfer between two of the tenant's accounts the approval policy holds for a second person (owner: the
   * approval, whose id the transfer keeps): posted by the transfer's debit once approved, released when rejected,
   * expired when nobody decided in time.
   */
  transfer_approval: {
    reasons: ['awaiting_approval'],
    releaseReasons: ['rejected'],
    heldCredit: false,
    queued: false,
    meaning: 'transfers awaiting approval',
    heldFor: 'for transfers awaiting approval',
  },
  /**
   * One item of a settlement batch the tenant's approval policy holds (owner: the item's hold id): expires when nobody
   * decided in time, kept without expiry once the batch is approved, posted by the item's settlement debit; released
   * when the batch is rejected or cancelled, or when the item is refused at its turn.
   */
  batch_approval: {
    reasons: ['awaiting_approval'],
    releaseReasons: ['rejected', 'cancelled', 'item_refused'],
    heldCredit: false,
    queued: false,
    meaning: 'settlement batch items awaiting approval or their turn',
    heldFor: 'for settlement batch items awaiting approval or their turn',
  },
  /**
   * A payout on a date (owner: the scheduled payout's id, or a scheduled batch item's hold id), kept from its request
   * to its time: posted by the settlement debit it becomes then, released when it is cancelled before it starts or
   * when the settlement is refused at its time (the account frozen, the customer suspended, the daily limit).
   */
  scheduled_payout: {
    reasons: ['scheduled'],
    releaseReasons: ['cancelled', 'refused', 'item_refused'],
    heldCredit: false,
    queued: false,
    meaning: 'payouts scheduled for a later time',
    heldFor: 'for payouts scheduled for a later time',
  },
} as const satisfies Record<string, ReservationKindDeclaration>;

interface ReservationKindDeclaration {
  /** What money of the kind is, in a few words, for the API's description of the reserved breakdown and the dashboard. */
  meaning: string;
  /**
   * Why such money may not be spent, as an `insufficient funds` refusal says it after "held " (kinds holding money
   * on the account are joined by " and ").
   */
  heldFor: string;
  /** Why a reservation of the kind was made; the reason is stored with it and shown where the kind is. */
  reasons: readonly string[];
  /**
   * Why a reservation of the kind may be released (stored with the release); an expiry is no release and has no
   * reason. A kind that holds a credit declares `credit_reversed` (the ledger releases it so when the credit goes).
   */
  releaseReasons: readonly string[];
  /**
   * The reservation holds a credit posted to the account (its owner is the credit's entry): the credit is judged
   * again if it is reversed or taken back (what was kept of it is released), and posting it is returning the money
   * to its payer, a settlement debit that is no payout of the customer's (it does not count toward its daily limit).
   */
  heldCredit: boolean;
  /**
   * An operator decides on each reservation of the kind in the held-money queue (src/kyc-limits/holds): releases it
   * (`operator`) or returns it to its payer. A kind not queued is ended only by the feature that owns it (a freeze's
   * lift, a lien's), never from the queue.
   */
  queued: boolean;
}

export type ReservationKind = keyof typeof RESERVATION_KINDS;
export type ReservationReason<Kind extends ReservationKind = ReservationKind> = (typeof RESERVATION_KINDS)[Kind]['reasons'][number];
/** Why a reservation of the kind may be released; for a union of kinds, any of theirs (ledger:verify checks the pair). */
export type ReleaseReason<Kind extends ReservationKind = ReservationKind> = (typeof RESERVATION_KINDS)[Kind]['releaseReasons'][number];

export const RESERVATION_KIND_NAMES = Object.keys(RESERVATION_KINDS) as ReservationKind[];

/** A kind whose reservations hold a credit (see heldCredit). */
export type HeldCreditKind = {
  [Kind in ReservationKind]: (typeof RESERVATION_KINDS)[Kind]['heldCredit'] extends true ? Kind : never;
}[ReservationKind];

/** The kinds whose reservations hold a credit (see heldCredit). */
export const HELD_CREDIT_KINDS = RESERVATION_KIND_NAMES.filter((kind): kind is HeldCreditKind => RESERVATION_KINDS[kind].heldCredit);

/** A kind whose reservations the held-money queue shows and decides on (see queued). */
export type QueuedKind = {
  [Kind in ReservationKind]: (typeof RESERVATION_KINDS)[Kind]['queued'] extends true ? Kind : never;
}[ReservationKind];

/** The kinds whose reservations the held-money queue shows and decides on (see queued). */
export const QUEUED_KINDS = RESERVATION_KIND_NAMES.filter((kind): kind is QueuedKind => RESERVATION_KINDS[kind].queued);

/** Whether `reason` is one the kind declares for a release. */
export function releasableFor(kind: ReservationKind, reason: string): boolean {
  return (RESERVATION_KINDS[kind].releaseReasons as readonly string[]).includes(reason);
}

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

/** Every (kind, release reason) declared, as SQL VALUES rows for ledger:verify. */
export function declaredReleaseReasonsSql(): string {
  return RESERVATION_KIND_NAMES.flatMap((kind) => RESERVATION_KINDS[kind].releaseReasons.map((reason) => `('${kind}', '${reason}')`)).join(
    ', ',
  );
}
