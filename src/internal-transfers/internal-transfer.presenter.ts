import { formatKobo } from '../money';
import type { InternalTransferRecord } from './internal-transfers.repo';

/** A transfer moves money in one ledger transaction when it is made: every transfer there is is completed. */
export function presentInternalTransfer(transfer: InternalTransferRecord) {
  return {
    id: transfer.id,
    fromAccountRef: transfer.fromAccountRef,
    toAccountRef: transfer.toAccountRef,
    amount: formatKobo(transfer.amount),
    narration: transfer.narration,
    status: 'completed' as const,
    source: transfer.source,
    splitOfPayment: transfer.splitOfPayment,
    createdAt: transfer.createdAt.toISOString(),
  };
}

/** What the audit log keeps of a transfer a client asked for (a dashboard user or an API key), under its Idempotency-Key. */
export function transferAuditDetail(transfer: InternalTransferRecord, idempotencyKey: string) {
  return {
    fromAccountRef: transfer.fromAccountRef,
    toAccountRef: transfer.toAccountRef,
    amount: formatKobo(transfer.amount),
    narration: transfer.narration,
    idempotencyKey,
  };
}
