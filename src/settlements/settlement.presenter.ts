import { presentMetadata } from '../http/metadata';
import { formatKobo } from '../money';
import type { ProviderAccountName, ProviderBank } from '../provider/provider.types';
import type { SettlementAttemptView, SettlementListItem, SettlementStatusChange } from './settlement-reads.repo';
import type { PayoutApprovalRecord, PayoutApprovalStatus } from './payout-approvals.repo';
import type { SettlementRecord } from './settlements.repo';
import type { AcceptedSettlement, PayoutSchedule } from './settle-outcomes';
import type { ScheduledPayoutRecord } from './scheduled-payouts.repo';
import { lagosTime } from '../policies/scheduled-payout/scheduled-payout';

/** A scheduled payout's time and state, on the transfer it is (present only on one scheduled). */
function presentSchedule(schedule: PayoutSchedule | undefined) {
  if (!schedule) return {};
  return {
    schedule: {
      scheduledFor: schedule.scheduledFor.toISOString(),
      scheduledForLagos: lagosTime(schedule.scheduledFor),
      state: schedule.state,
      refusal: schedule.refusal,
    },
  };
}

/** The transfer status a scheduled payout shows before (or instead of) its settlement's. */
function scheduledStatus(payout: ScheduledPayoutRecord): 'pending' | 'cancelled' | 'failed' {
  return payout.state === 'cancelled' ? 'cancelled' : payout.state === 'refused' ? 'failed' : 'pending';
}

/** The answer to a settle request, from the API and the dashboard alike. */
export function presentAcceptedSettlement(settlement: AcceptedSettlement) {
  return {
    merchantTxRef: settlement.merchantTxRef,
    status: settlement.status,
    amount: formatKobo(settlement.amount),
    currency: settlement.currency,
    accountRef: settlement.accountRef,
    ...presentMetadata('metadata', settlement.metadata),
    ...presentSchedule(settlement.schedule),
  };
}

/** A settlement as GET /v1/transfers/{merchantTxRef} shows it; the dashboard's detail adds to it. */
export function presentSettlementView(settlement: SettlementRecord, schedule?: PayoutSchedule) {
  return {
    merchantTxRef: settlement.merchantTxRef,
    status: settlement.status,
    amount: formatKobo(settlement.amount),
    bankCode: settlement.bankCode,
    accountNumber: settlement.accountNumber,
    attemptCount: settlement.attemptCount,
    createdAt: settlement.createdAt.toISOString(),
    updatedAt: settlement.updatedAt.toISOString(),
    currency: settlement.currency,
    accountRef: settlement.accountRef,
    providerFee: settlement.providerFee === null ? null : formatKobo(settlement.providerFee),
    beneficiaryId: settlement.beneficiaryId,
    ...presentMetadata('metadata', settlement.metadata),
    ...presentSchedule(schedule),
  };
}

/** A payout scheduled for a date that is not (yet, or ever) a settlement, as a transfer. */
export function presentScheduledPayout(payout: ScheduledPayoutRecord) {
  return {
    merchantTxRef: payout.merchantTxRef,
    status: scheduledStatus(payout),
    amount: formatKobo(payout.amount),
    bankCode: payout.bankCode,
    accountNumber: payout.accountNumber,
    attemptCount: 0,
    createdAt: payout.createdAt.toISOString(),
    updatedAt: (payout.endedAt ?? payout.createdAt).toISOString(),
    currency: 'NGN' as const,
    accountRef: payout.accountRef,
    providerFee: null,
    beneficiaryId: payout.beneficiaryId,
    ...presentMetadata('metadata', payout.metadata),
    ...presentSchedule(payout),
  };
}

/**
 * GET /v1/transfers/{merchantTxRef}: a settlement (with its schedule, when it was a payout on a date), a payout held for
 * approval that is not (yet) one, or a scheduled payout that is not (yet) one.
 */
export function presentTransferView(transfer: SettlementRecord | PayoutApprovalRecord | ScheduledPayoutRecord, schedule?: PayoutSchedule) {
  if ('attemptCount' in transfer) return presentSettlementView(transfer, schedule);
  if ('state' in transfer) return presentScheduledPayout(transfer);
  return {
    merchantTxRef: transfer.merchantTxRef,
    status: transfer.status as Exclude<PayoutApprovalStatus, 'approved'>,
    amount: formatKobo(transfer.amount),
    bankCode: transfer.bankCode,
    accountNumber: transfer.accountNumber,
    attemptCount: 0,
    createdAt: transfer.createdAt.toISOString(),
    updatedAt: (transfer.decidedAt ?? transfer.createdAt).toISOString(),
    currency: 'NGN' as const,
    accountRef: transfer.accountRef,
    providerFee: null,
    beneficiaryId: transfer.beneficiaryId,
    ...presentMetadata('metadata', transfer.metadata),
  };
}

/** A payout held for approval, as the dashboard's approvals list and detail show it. */
export function presentHeldPayout(held: PayoutApprovalRecord) {
  return {
    merchantTxRef: held.merchantTxRef,
    status: held.status,
    accountRef: held.accountRef,
    amount: formatKobo(held.amount),
    currency: 'NGN' as const,
    bankCode: held.bankCode,
    accountNumber: held.accountNumber,
    accountName: held.accountName,
    beneficiaryId: held.beneficiaryId,
    narration: held.narration,
    reasons: held.reasons,
    maker: held.makerEmail ?? (held.makerApiKeyId !== null ? 'API key' : 'balance sweep'),
    makerUserId: held.makerUserId,
    makerApiKeyId: held.makerApiKeyId,
    createdAt: held.createdAt.toISOString(),
    expiresAt: held.expiresAt.toISOString(),
    decidedBy: held.decidedByEmail,
    decidedAt: held.decidedAt?.toISOString() ?? null,
    decisionNote: held.decisionNote,
  };
}

export function presentSettlementDetail(settlement: SettlementRecord, providerTransferId: string | null) {
  return {
    ...presentSettlementView(settlement),
    accountName: settlement.accountName,
    narration: settlement.narration,
    failureReason: settlement.failureReason,
    providerTransferId,
  };
}

export function presentSettlementListItem(row: SettlementListItem) {
  return {
    ID: row.id,
    MerchantTxRef: row.merchantTxRef,
    AccountRef: row.accountRef,
    Amount: formatKobo(row.amount),
    BankCode: row.bankCode,
    AccountNumber: row.accountNumber,
    AccountName: row.accountName,
    Status: row.status,
    AttemptCount: row.attemptCount,
    ...presentMetadata('Metadata', row.metadata),
    CreatedAt: row.createdAt.toISOString(),
    UpdatedAt: row.updatedAt.toISOString(),
  };
}

export function presentSettlementAttempt(attempt: SettlementAttemptView) {
  return {
    attempt: attempt.attemptNo,
    providerRef: attempt.providerRef,
    outcome: attempt.outcome,
    providerTransferId: attempt.providerTransferId,
    detail: attempt.detail,
    startedAt: attempt.createdAt.toISOString(),
    updatedAt: attempt.updatedAt.toISOString(),
  };
}

export const presentStatusChange = (change: SettlementStatusChange) => ({ status: change.status, at: change.changedAt.toISOString() });

export const presentBank = (bank: ProviderBank) => ({ Code: bank.code, Name: bank.name });

export const presentAccountName = (found: ProviderAccountName) => ({ AccountNumber: found.accountNumber, AccountName: found.accountName });
