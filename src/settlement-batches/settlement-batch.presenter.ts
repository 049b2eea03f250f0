import { presentMetadata } from '../http/metadata';
import { formatKobo } from '../money';
import { lagosTime } from '../policies/scheduled-payout/scheduled-payout';
import type { BatchSummary, BatchView, DryRunItem, HeldBatchView } from './settlement-batches.service';

export const presentBatchSummary = (batch: BatchSummary) => ({
  id: batch.id,
  status: batch.status,
  counts: batch.counts,
  ...presentMetadata('metadata', batch.metadata),
  createdAt: batch.createdAt.toISOString(),
  ...(batch.scheduledFor ? { scheduledFor: batch.scheduledFor.toISOString(), scheduledForLagos: lagosTime(batch.scheduledFor) } : {}),
});

export const presentBatch = (batch: BatchView) => ({ ...presentBatchSummary(batch), items: batch.items, pagination: batch.pagination });

export const presentDryRun = (items: DryRunItem[]) => ({
  valid: items.filter((item) => item.valid).length,
  invalid: items.filter((item) => !item.valid).length,
  items,
});

export function presentHeldBatch({ batch, approval, flagged, flaggedCount }: HeldBatchView) {
  return {
    id: batch.id,
    status: batch.status,
    items: batch.itemCount,
    total: formatKobo(approval.total),
    currency: 'NGN' as const,
    reasons: approval.reasons,
    maker: approval.makerEmail ?? 'API key',
    makerUserId: batch.createdBy,
    createdAt: batch.createdAt.toISOString(),
    expiresAt: approval.expiresAt.toISOString(),
    decidedBy: approval.decidedByEmail,
    decidedAt: approval.decidedAt?.toISOString() ?? null,
    decisionNote: approval.decisionNote,
    flaggedCount,
    flagged: flagged.map((item) => ({
      reference: item.reference,
      accountRef: item.accountRef,
      amount: item.amount,
      reason: item.flaggedReason ?? '',
    })),
  };
}
