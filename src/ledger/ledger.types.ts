import type { Kobo } from '../money';

export type EntryDirection = 'credit' | 'debit';
export type EntryKind = 'payment' | 'settlement' | 'reversal';
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

export interface AccountTotals {
  accountId: string;
  tenantId: string;
  ledgerBalance: Kobo;
  pendingCredits: Kobo;
  totalCredits: Kobo;
  totalDebits: Kobo;
  lastSeq: bigint;
}

export interface NewPosting {
  direction: EntryDirection;
  kind: Exclude<EntryKind, 'reversal'>;
  amount: Kobo;
  fee?: Kobo;
  status: 'provisional' | 'confirmed';
  narration: string;
  providerTxnRef: string | null;
  transactionGroupId: string;
}
