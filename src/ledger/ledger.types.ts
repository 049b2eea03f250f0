import type { Kobo } from '../money';

type EntryDirection = 'credit' | 'debit';
export type EntryKind = 'payment' | 'settlement' | 'reversal' | 'adjustment';
export type EntryStatus = 'provisional' | 'confirmed' | 'reversed';

/** A tenant's accounts for the other side of every movement (docs/ledger.md, the chart of accounts). */
export const SYSTEM_ACCOUNTS = ['clearing', 'provider_fees', 'payouts_in_transit', 'costs'] as const;
export type SystemAccount = (typeof SYSTEM_ACCOUNTS)[number];

/** What a transaction between system accounts only records: a payout leaving the provider, or its fee. */
export type SystemTransactionKind = 'payout' | 'payout_fee';

/** One posting to a system account, signed: + is a credit, - a debit, as a customer entry's credit is +. */
export interface SystemPosting {
  account: SystemAccount;
  amount: Kobo;
}

export interface LedgerEntry {
  id: string;
  tenantId: string;
  accountId: string;
  seq: bigint;
  direction: EntryDirection;
  kind: EntryKind;
  amount: Kobo;
  fee: Kobo;
  currency: 'NGN';
  status: EntryStatus;
  narration: string;
  providerTxnRef: string | null;
  transactionGroupId: string;
  /** The balanced transaction this entry is one posting of. */
  transactionId: string;
  reversesEntryId: string | null;
  balanceAfter: Kobo;
  creditsToDate: Kobo;
  debitsToDate: Kobo;
  createdAt: Date;
}

export interface NewPosting {
  /** Generated when absent; callers that must reference the entry in the same transaction pass one. */
  id?: string;
  direction: EntryDirection;
  kind: EntryKind;
  /** Set on (and only on) a reversal or an adjustment: the entry it answers. */
  reversesEntryId?: string;
  amount: Kobo;
  fee?: Kobo;
  status: 'provisional' | 'confirmed';
  narration: string;
  providerTxnRef: string | null;
  transactionGroupId: string;
  /**
   * The transaction's postings to system accounts; with this entry they sum to zero. A payment credit's and a
   * settlement debit's follow from their kind (see planPosting); every other posting names them.
   */
  counterPostings?: SystemPosting[];
  /** Generated when absent: the entry is a transaction of its own with its counter postings. */
  transactionId?: string;
}
