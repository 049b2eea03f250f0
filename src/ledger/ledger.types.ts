import type { Kobo } from '../money';

type EntryDirection = 'credit' | 'debit';
export type EntryKind = 'payment' | 'settlement' | 'reversal' | 'adjustment';
export type EntryStatus = 'provisional' | 'confirmed' | 'reversed';

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
}
