import { koboToProviderNumber } from '../money';
import type { ProviderTransactionStatus } from '../provider/provider.types';
import type { SandboxPayment, SandboxTransfer, SandboxVirtualAccount } from './sandbox.state';

/** Sandbox records in the provider's wire shape: amounts as JSON numbers of naira. */

export function virtualAccountWire(account: SandboxVirtualAccount) {
  const { expectedAmountKobo, ...rest } = account;
  return { ...rest, expectedAmount: expectedAmountKobo === null ? null : koboToProviderNumber(expectedAmountKobo) };
}

export function transferWire(transfer: SandboxTransfer) {
  return {
    id: transfer.id,
    status: transfer.status,
    amount: koboToProviderNumber(transfer.amountKobo),
    fee: koboToProviderNumber(transfer.feeKobo),
    meta: { merchantTxRef: transfer.merchantTxRef },
    timeCreated: transfer.createdAt,
  };
}

/** `status` is what the provider's lookup shows, which can trail the transfer's own (a refund's lookup lag). */
export function transferTransactionWire(transfer: SandboxTransfer, status: ProviderTransactionStatus) {
  return {
    id: transfer.id,
    status,
    amount: koboToProviderNumber(transfer.amountKobo),
    fee: koboToProviderNumber(transfer.feeKobo),
    type: 'transfer',
    merchantTxRef: transfer.profile.lookupAnswersFor ?? transfer.merchantTxRef,
    aliasAccountReference: null,
    timeCreated: transfer.createdAt,
  };
}

export function paymentTransactionWire(payment: SandboxPayment) {
  return {
    id: payment.transactionId,
    status: payment.status,
    amount: koboToProviderNumber(payment.amountKobo),
    fee: koboToProviderNumber(payment.feeKobo),
    type: 'vact_transfer',
    merchantTxRef: null,
    aliasAccountReference: payment.accountRef,
    timeCreated: payment.createdAt,
  };
}

/** The control view of one submission, for tests that count attempts and payouts. */
export function submissionView(transfer: SandboxTransfer) {
  return {
    reference: transfer.merchantTxRef,
    id: transfer.id,
    status: transfer.status,
    amount: koboToProviderNumber(transfer.amountKobo),
    fee: koboToProviderNumber(transfer.feeKobo),
    accountNumber: transfer.accountNumber,
    bankCode: transfer.bankCode,
    submissionNumber: transfer.submissionNumber,
    paidOut: transfer.paidOut,
    refunded: transfer.status === 'REFUND',
    createdAt: transfer.createdAt,
    updatedAt: transfer.updatedAt,
  };
}
