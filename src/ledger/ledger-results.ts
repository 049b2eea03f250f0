import type { Kobo } from '../money';
import type { LedgerEntry } from './ledger.types';

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

export type LedgerResult = Reversal | RestoredCredit | CompensatedCredit | PostedTransfer | PaidSettlement | PostedCredit;
