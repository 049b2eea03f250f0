import type { Kobo } from '../money';
import type { LedgerEntry } from './ledger.types';
import type { ReleaseReason, ReservationKind, ReservationReason } from './reservation-kinds';

/**
 * What a ledger operation did, as the operation returns it: the entries it posted and the money it set aside. The
 * events layer (src/events/ledger-events.ts) tells tenants of money from these results alone, in the operation's
 * transaction; a product module never records a money event itself.
 */

/** A provisional entry reversed: the original (now reversed) and the opposite entry that answers it. */
export interface Reversal {
  kind: 'reversed';
  original: LedgerEntry;
  reversal: LedgerEntry;
}

/** A reversed credit restored: a confirmed credit answering the reversal, and what the limits or the account's policy set aside of it. */
export interface RestoredCredit {
  kind: 'restored';
  original: LedgerEntry;
  entry: LedgerEntry;
  held: Kobo;
}

/** A part of a split credit that moved to another account of the tenant: the split transfer's two entries. */
export interface SplitPartToTakeBack {
  /** The account that received the part. */
  accountId: string;
  /** The transfer's credit to that account. */
  creditEntryId: string;
  /** The transfer's debit of the splitting account. */
  debitEntryId: string;
  amount: Kobo;
}

/** A confirmed credit taken back: the compensating debit and, per split part, the receiver's debit that took it back. */
export interface CompensatedCredit<Part extends SplitPartToTakeBack = SplitPartToTakeBack> {
  kind: 'compensated';
  credit: LedgerEntry;
  debit: LedgerEntry;
  takenBack: Array<Part & { entryId: string }>;
}

/** A transfer between two accounts: one balanced transaction, and the part of the credit the receiving customer's limits hold. */
export interface PostedTransfer {
  kind: 'transferred';
  /** The reference the caller posted it under (its transfer's id). */
  reference: string;
  transactionId: string;
  debit: LedgerEntry;
  credit: LedgerEntry;
  held: Kobo;
}

/** A settlement's payout left the provider: its debit, now confirmed (its reference is the settlement's merchantTxRef). */
export interface PaidSettlement {
  kind: 'settlement_paid';
  debit: LedgerEntry;
}

/** A payment credit posted one at a time (a group of one): the entry and what the limits or the account's policy set aside of it. */
export interface PostedCredit {
  kind: 'credited';
  entry: LedgerEntry;
  held: Kobo;
}

/** Money set aside on an account by a feature (a lien): the reservation made, of its kind and reason. */
export interface MadeReservation {
  kind: 'reserved';
  reservationId: string;
  accountId: string;
  reservationKind: ReservationKind;
  reason: ReservationReason;
  /** What it is kept for (a lien's: the lien's id). */
  ownerId: string;
  amount: Kobo;
  expiresAt: Date | null;
}

/** One reservation an operation ended (in whole or the part it still held), and what it was kept for. */
export interface EndedReservation {
  reservationId: string;
  accountId: string;
  kind: ReservationKind;
  /** What it was kept for (a held credit's: the credit's entry id). */
  ownerId: string;
  /** The held credit's transaction group, where the operation read its credit (a release or return of one credit). */
  transactionGroupId: string | null;
  amount: Kobo;
}

/**
 * Reservations ended by one operation, all the same way: released (with why), posted by an entry (the settlement
 * debit that returns a held credit, written next in the transaction), or expired. `userId` is the operator who
 * ended them; null when the service did (an expiry, a tier the verifier raised, a return it makes itself).
 */
export interface EndedReservations {
  kind: 'reservations_ended';
  outcome: 'released' | 'posted' | 'expired';
  /** Why they were released; null when posted or expired. */
  reason: ReleaseReason | null;
  /** The entry that posts them; null when released or expired. */
  entryId: string | null;
  userId: string | null;
  ended: EndedReservation[];
}

/** The kobo an operation's reservations ended with. */
export function endedAmount(result: EndedReservations): Kobo {
  return result.ended.reduce((sum, reservation) => sum + reservation.amount, 0n);
}

export type LedgerResult =
  Reversal | RestoredCredit | CompensatedCredit | PostedTransfer | PaidSettlement | PostedCredit | MadeReservation | EndedReservations;
