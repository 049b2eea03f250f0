import type { Config } from '../config';
import type { Kobo } from '../money';
import { koboToProviderNumber } from '../money';
import { baseReference } from './attempt-references';
import { findBank } from './banks';
import { providerFeeKobo } from './fees';
import { transferScript } from './magic-values';
import type { Scheduler } from './scheduler';
import { isoSeconds, newTransferId } from './sandbox-ids';
import type { ProviderTransactionStatus } from '../provider/provider.types';
import type { SandboxState, SandboxTransfer } from './sandbox.state';
import type { EventData, ProviderEventType, WebhookSender } from './webhook-sender';

export interface TransferRequest {
  amountKobo: Kobo;
  accountNumber: string;
  accountName: string;
  bankCode: string;
  merchantTxRef: string;
  senderName: string;
  narration: string;
}

export interface TransferLifecycle {
  /** A reused merchantTxRef returns the original transfer (created: false), never a second payout. */
  submit(request: TransferRequest): { transfer: SandboxTransfer; created: boolean };
  /** A status check, which is what settles most magic outcomes. */
  check(transfer: SandboxTransfer): SandboxTransfer;
  /** The provider reverses a transfer it paid out (a late refund); false when it was not SUCCESS. */
  refund(transfer: SandboxTransfer): boolean;
}

type SettledStatus = Exclude<ProviderTransactionStatus, 'PROCESSING'>;

const EVENT_TYPES: Record<SettledStatus, ProviderEventType> = {
  SUCCESS: 'payout_success',
  PAYMENT_FAILED: 'payout_failed',
  REFUND: 'payout_refund',
};

const RESPONSE_CODES: Record<SettledStatus, string> = { SUCCESS: '00', PAYMENT_FAILED: '01', REFUND: '00' };

function payoutEventData(transfer: SandboxTransfer, status: SettledStatus): EventData {
  return {
    transaction: {
      transactionId: transfer.id,
      type: 'transfer',
      time: isoSeconds(),
      responseCode: RESPONSE_CODES[status],
      transactionAmount: koboToProviderNumber(transfer.amountKobo),
      fee: koboToProviderNumber(transfer.feeKobo),
      currency: 'NGN',
      merchantTxRef: transfer.merchantTxRef,
      narration: transfer.narration,
    },
    // For a payout the counterparty is the beneficiary; the sender is the merchant.
    customer: { senderName: transfer.senderName, accountNumber: transfer.accountNumber, bankName: findBank(transfer.bankCode)?.name ?? transfer.bankCode },
  };
}

export function createTransferLifecycle(deps: { config: Config; state: SandboxState; scheduler: Scheduler; webhooks: WebhookSender }): TransferLifecycle {
  const { config, state, scheduler, webhooks } = deps;

  function settle(transfer: SandboxTransfer, status: SettledStatus): void {
    transfer.status = status;
    transfer.updatedAt = new Date().toISOString();
    const debitKobo = transfer.amountKobo + transfer.feeKobo;
    if (status === 'SUCCESS') {
      transfer.paidOut = true;
      state.walletBalanceKobo -= debitKobo;
      if (transfer.script.refundsAfterSuccess) scheduler.after(config.SANDBOX_REFUND_DELAY, () => settle(transfer, 'REFUND'));
    }
    if (status === 'REFUND') state.walletBalanceKobo += debitKobo;
    void webhooks.send(EVENT_TYPES[status], payoutEventData(transfer, status));
  }

  return {
    submit(request) {
      const existing = state.transferByReference(request.merchantTxRef);
      if (existing) return { transfer: existing, created: false };

      const base = baseReference(request.merchantTxRef);
      const submissionNumber = (state.submissionsPerBaseReference.get(base) ?? 0) + 1;
      state.submissionsPerBaseReference.set(base, submissionNumber);
      const now = new Date().toISOString();
      const transfer: SandboxTransfer = {
        id: newTransferId(),
        ...request,
        submissionNumber,
        feeKobo: providerFeeKobo(request.amountKobo),
        script: transferScript(request.accountNumber, submissionNumber),
        status: 'PROCESSING',
        paidOut: false,
        createdAt: now,
        updatedAt: now,
      };
      state.transfers.set(transfer.id, transfer);
      state.transferIdsByReference.set(transfer.merchantTxRef, transfer.id);
      if (transfer.script.settles === 'after_processing_time') {
        scheduler.after(config.SANDBOX_PROCESSING_TIME, () => settle(transfer, transfer.script.final));
      }
      return { transfer, created: true };
    },

    check(transfer) {
      if (transfer.status === 'PROCESSING' && transfer.script.settles === 'at_first_check') settle(transfer, transfer.script.final);
      return transfer;
    },

    refund(transfer) {
      if (transfer.status !== 'SUCCESS') return false;
      settle(transfer, 'REFUND');
      return true;
    },
  };
}
