import type { DbOrTrx } from '../db';
import { presentMetadata, type Metadata } from '../http/metadata';
import { formatKobo, parseNairaInput } from '../money';
import { settlementOutcomes, settlementStatusCounts } from '../settlements/settlements.access';
import { createSettlementBatchesRepo, type BatchItemRecord, type BatchRecord } from './settlement-batches.repo';
import type { BatchCounts } from './settlement-batches.schemas';

export interface BatchItemView {
  reference: string;
  accountRef: string;
  amount: string;
  merchantTxRef: string | null;
  status: keyof BatchCounts;
  failureReason: string | null;
  metadata?: Metadata;
}

/** An amount as the batch shows it: two decimals when it is one, else as sent. */
const shownAmount = (sent: string): string => {
  const kobo = parseNairaInput(sent);
  return kobo === null ? sent : formatKobo(kobo);
};

/**
 * The batch's items per status: queued and refused items from the batch's own rows, every other one from
 * its settlement's status as it is now (never a copy that could drift).
 */
export async function batchCounts(db: DbOrTrx, batch: Pick<BatchRecord, 'id' | 'tenantId'>): Promise<BatchCounts> {
  const repo = createSettlementBatchesRepo(db);
  const [unsettled, settled] = await Promise.all([
    repo.unsettledCounts(batch.id),
    settlementStatusCounts(db, batch.tenantId, repo.settlementRefsOf(batch.id)),
  ]);
  return {
    queued: unsettled.queued,
    pending: settled.pending ?? 0,
    processing: settled.processing ?? 0,
    success: settled.success ?? 0,
    failed: unsettled.refused + (settled.failed ?? 0),
    refunded: settled.refunded ?? 0,
  };
}

/** Items with their settlements' status and failure reason now. */
export async function itemViews(db: DbOrTrx, tenantId: string, items: BatchItemRecord[]): Promise<BatchItemView[]> {
  const outcomes = await settlementOutcomes(
    db,
    tenantId,
    items.flatMap((item) => (item.merchantTxRef === null ? [] : [item.merchantTxRef])),
  );
  return items.map((item) => {
    const outcome = item.merchantTxRef === null ? undefined : outcomes.get(item.merchantTxRef);
    return {
      reference: item.reference,
      accountRef: item.accountRef,
      amount: shownAmount(item.amount),
      merchantTxRef: item.merchantTxRef,
      status: outcome?.status ?? (item.failureReason === null ? 'queued' : 'failed'),
      failureReason: outcome ? outcome.failureReason : item.failureReason,
      ...presentMetadata('metadata', item.metadata),
    };
  });
}
