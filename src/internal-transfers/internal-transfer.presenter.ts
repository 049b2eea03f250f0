import { presentMetadata } from '../http/metadata';
import { formatKobo } from '../money';
import { isHeldTransfer, type TransferApprovalRecord, type TransferMade } from './transfer-approvals.repo';

/**
 * A transfer moves money in one ledger transaction when it is made: every transfer there is is completed. One the
 * approval policy holds is `awaiting_approval` (then `rejected` or `expired`, or completed once approved).
 */
export function presentInternalTransfer(transfer: TransferMade) {
  return {
    id: transfer.id,
    fromAccountRef: transfer.fromAccountRef,
    toAccountRef: transfer.toAccountRef,
    amount: formatKobo(transfer.amount),
    narration: transfer.narration,
    status: isHeldTransfer(transfer) && transfer.status !== 'approved' ? transfer.status : ('completed' as const),
    source: transfer.source,
    splitOfPayment: isHeldTransfer(transfer) ? null : transfer.splitOfPayment,
    ...presentMetadata('metadata', transfer.metadata),
    createdAt: transfer.createdAt.toISOString(),
  };
}

/** A held transfer as the Approvals page shows it: what it moves, who made it, until when it waits, and its decision. */
export function presentHeldTransfer(held: TransferApprovalRecord) {
  return {
    id: held.id,
    status: held.status,
    fromAccountRef: held.fromAccountRef,
    toAccountRef: held.toAccountRef,
    amount: formatKobo(held.amount),
    currency: 'NGN' as const,
    narration: held.narration,
    maker: held.makerEmail ?? 'API key',
    makerUserId: held.makerUserId,
    createdAt: held.createdAt.toISOString(),
    expiresAt: held.expiresAt.toISOString(),
    decidedBy: held.decidedByEmail,
    decidedAt: held.decidedAt?.toISOString() ?? null,
    decisionNote: held.decisionNote,
  };
}

/** What the audit log keeps of a transfer a client asked for (a dashboard user or an API key), under its Idempotency-Key. */
export function transferAuditDetail(transfer: TransferMade, idempotencyKey: string) {
  return {
    fromAccountRef: transfer.fromAccountRef,
    toAccountRef: transfer.toAccountRef,
    amount: formatKobo(transfer.amount),
    narration: transfer.narration,
    idempotencyKey,
  };
}
