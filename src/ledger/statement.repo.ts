import type { DbOrTrx } from '../db';
import { toLedgerEntry } from './ledger.repo';
import type { LedgerEntry } from './ledger.types';

/** Statement reads: every one is an index lookup on (account_id, seq) or (account_id, created_at). */
export function createStatementRepo(db: DbOrTrx) {
  return {
    async entrySeqInAccount(accountId: string, entryId: string): Promise<bigint | undefined> {
      const row: { seq: string } | undefined = await db('ledger_entries').where({ account_id: accountId, id: entryId }).first('seq');
      return row ? BigInt(row.seq) : undefined;
    },

    /** The last entry posted strictly before `at` (entries are stamped in seq order under the account lock). */
    async lastEntryBefore(accountId: string, at: Date): Promise<LedgerEntry | undefined> {
      const row = await db('ledger_entries').where({ account_id: accountId }).where('created_at', '<', at).orderBy('created_at', 'desc').orderBy('seq', 'desc').first();
      return row ? toLedgerEntry(row) : undefined;
    },

    async page(accountId: string, afterSeq: bigint, throughSeq: bigint, limit: number): Promise<LedgerEntry[]> {
      const rows = await db('ledger_entries')
        .where({ account_id: accountId })
        .where('seq', '>', afterSeq.toString())
        .where('seq', '<=', throughSeq.toString())
        .orderBy('seq')
        .limit(limit);
      return rows.map(toLedgerEntry);
    },
  };
}
