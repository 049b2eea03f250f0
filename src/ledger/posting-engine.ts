import type { Db, Trx } from '../db';
import { BadRequestError } from '../errors';
import { uuidv7 } from '../ids';
import { createLedgerRepo, type NewEntryRow } from './ledger.repo';
import type { AccountTotals, EntryKind, LedgerEntry, NewPosting } from './ledger.types';

export class InsufficientFundsError extends BadRequestError {
  constructor() {
    super('insufficient_funds', 'insufficient funds');
  }
}

export interface Reversal {
  original: LedgerEntry;
  reversal: LedgerEntry;
}

type EntryDraft = Omit<NewPosting, 'kind'> & { kind: EntryKind; reversesEntryId: string | null };

/**
 * The only writer of ledger entries and account totals. Every change takes the account's row lock
 * first, so seq, running balances, totals and the available-balance check are serialised per account.
 */
export function createPostingEngine(db: Db) {
  const repo = createLedgerRepo(db);

  async function lock(trx: Trx, accountId: string): Promise<AccountTotals> {
    const totals = await repo.lockAccountTotals(trx, accountId);
    if (!totals) throw new Error(`account ${accountId} does not exist`);
    return totals;
  }

  async function append(trx: Trx, totals: AccountTotals, drafts: EntryDraft[]): Promise<LedgerEntry[]> {
    const rows: NewEntryRow[] = drafts.map((draft) => {
      if (draft.amount <= 0n) throw new Error('a posting amount must be positive');
      const credit = draft.direction === 'credit';
      totals.lastSeq += 1n;
      totals.totalCredits += credit ? draft.amount : 0n;
      totals.totalDebits += credit ? 0n : draft.amount;
      totals.ledgerBalance = totals.totalCredits - totals.totalDebits;
      if (credit && draft.status === 'provisional') totals.pendingCredits += draft.amount;
      return {
        id: uuidv7(),
        tenant_id: totals.tenantId,
        account_id: totals.accountId,
        seq: totals.lastSeq,
        direction: draft.direction,
        kind: draft.kind,
        amount: draft.amount,
        fee: draft.fee ?? 0n,
        currency: 'NGN',
        status: draft.status,
        narration: draft.narration,
        provider_txn_ref: draft.providerTxnRef,
        transaction_group_id: draft.transactionGroupId,
        reverses_entry_id: draft.reversesEntryId,
        balance_after: totals.ledgerBalance,
        credits_to_date: totals.totalCredits,
        debits_to_date: totals.totalDebits,
      };
    });
    const entries = await repo.insertEntries(trx, rows);
    await repo.saveTotals(trx, totals);
    return entries;
  }

  return {
    /**
     * Posts entries to one account. With `spendAvailable`, the debits must fit in the available
     * balance (ledger balance less provisional credits), checked under the same lock as the write.
     */
    async post(trx: Trx, accountId: string, postings: NewPosting[], options: { spendAvailable?: boolean } = {}): Promise<LedgerEntry[]> {
      const totals = await lock(trx, accountId);
      if (options.spendAvailable) {
        const debits = postings.filter((posting) => posting.direction === 'debit').reduce((sum, posting) => sum + posting.amount, 0n);
        if (totals.ledgerBalance - totals.pendingCredits < debits) throw new InsufficientFundsError();
      }
      return append(trx, totals, postings.map((posting) => ({ ...posting, reversesEntryId: null })));
    },

    /** provisional -> confirmed; undefined when the entry had already left `provisional`. */
    async confirm(trx: Trx, entryId: string): Promise<LedgerEntry | undefined> {
      const entry = await repo.findEntry(entryId, trx);
      if (!entry) return undefined;
      const totals = await lock(trx, entry.accountId);
      const confirmed = await repo.moveStatus(trx, entryId, ['provisional'], 'confirmed');
      if (!confirmed) return undefined;
      if (confirmed.direction === 'credit') {
        totals.pendingCredits -= confirmed.amount;
        await repo.saveTotals(trx, totals);
      }
      return confirmed;
    },

    /**
     * Marks the entry reversed and posts the opposite entry (the original stays visible). A provisional
     * entry can always be reversed; a confirmed one only when it is a settlement debit the provider refunded.
     */
    async reverse(trx: Trx, entryId: string, narration: string): Promise<Reversal | undefined> {
      const entry = await repo.findEntry(entryId, trx);
      if (!entry) return undefined;
      const totals = await lock(trx, entry.accountId);
      const from: LedgerEntry['status'][] = entry.kind === 'settlement' ? ['provisional', 'confirmed'] : ['provisional'];
      const original = await repo.moveStatus(trx, entryId, from, 'reversed');
      if (!original) return undefined;
      // Only provisional credits can be reversed, so a reversed credit always leaves pending credits.
      if (original.direction === 'credit') totals.pendingCredits -= original.amount;
      const [reversal] = await append(trx, totals, [
        {
          direction: original.direction === 'credit' ? 'debit' : 'credit',
          kind: 'reversal',
          amount: original.amount,
          status: 'confirmed',
          narration,
          providerTxnRef: original.providerTxnRef,
          transactionGroupId: original.transactionGroupId,
          reversesEntryId: original.id,
        },
      ]);
      return { original, reversal: reversal! };
    },
  };
}

export type PostingEngine = ReturnType<typeof createPostingEngine>;
