import type { Kobo } from '../money';

type EntryDirection = 'credit' | 'debit';
export type EntryKind = 'payment' | 'settlement' | 'reversal' | 'adjustment' | 'transfer';
export type EntryStatus = 'provisional' | 'confirmed' | 'reversed';

/** The entries to append and what they do to the account's totals (see planPosting): what callers hand the ledger. */
export interface PostingPlan {
  drafts: EntryDraft[];
  totals: AppendTotals;
}

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

/** One entry to append, in order; seq and the running columns are computed in SQL under the lock. */
export interface EntryDraft {
  id: string;
  direction: LedgerEntry['direction'];
  kind: EntryKind;
  amount: Kobo;
  fee: Kobo;
  status: EntryStatus;
  narration: string;
  providerTxnRef: string | null;
  transactionGroupId: string;
  transactionId: string;
  reversesEntryId: string | null;
  counterPostings: SystemPosting[];
}

/** What an append does beyond its drafts (the totals of the drafts themselves are summed in SQL, per account). */
export interface AppendTotals {
  /** Pending credits leaving because this append reverses one. */
  pendingReleased: Kobo;
  /** Held money leaving because this append reverses or takes back a credit that had a held part. */
  heldReleased: Kobo;
  /**
   * A payout: the append happens only if this balance of the account (ledger, or ledger less pending
   * credits), less its held money, covers its debits, and, when it counts toward the day (every payout but a
   * return of held money to its payer), the customer's payouts of the day stay within its daily limit.
   */
  requireFunds: { from: FundsSource; countsTowardDay: boolean } | null;
}

/** What a settlement may spend: the ledger balance (SPEC.md) or only confirmed money. */
export type FundsSource = 'ledger' | 'available';
