import type { BatchSummary, BatchView, DryRunItem } from './settlement-batches.service';

export const presentBatchSummary = (batch: BatchSummary) => ({
  id: batch.id,
  status: batch.status,
  counts: batch.counts,
  createdAt: batch.createdAt.toISOString(),
});

export const presentBatch = (batch: BatchView) => ({ ...presentBatchSummary(batch), items: batch.items, pagination: batch.pagination });

export const presentDryRun = (items: DryRunItem[]) => ({
  valid: items.filter((item) => item.valid).length,
  invalid: items.filter((item) => !item.valid).length,
  items,
});
