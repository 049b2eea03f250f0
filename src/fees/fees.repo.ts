import type { DbOrTrx } from '../db';
import { koboFromDb } from '../money';
import type { FeeTier } from './fee-schedule';

interface TierRow {
  min_send: string;
  max_send: string | null;
  fee: string;
}

export function createFeesRepo(db: DbOrTrx) {
  return {
    async listTiers(): Promise<FeeTier[]> {
      const rows: TierRow[] = await db('fee_tiers').orderBy('min_send').select(['min_send', 'max_send', 'fee']);
      return rows.map((row) => ({
        minSend: koboFromDb(row.min_send),
        maxSend: row.max_send === null ? null : koboFromDb(row.max_send),
        fee: koboFromDb(row.fee),
      }));
    },

    /**
     * Call inside a transaction: readers see the old schedule or the new one, never a mix. The lock
     * queues a concurrent replacement behind this one, which would otherwise keep both sets of rows.
     */
    async replaceTiers(tiers: readonly FeeTier[]): Promise<void> {
      await db.raw('LOCK TABLE fee_tiers IN EXCLUSIVE MODE');
      await db('fee_tiers').del();
      await db('fee_tiers').insert(tiers.map((tier) => ({ min_send: tier.minSend, max_send: tier.maxSend, fee: tier.fee })));
    },
  };
}
