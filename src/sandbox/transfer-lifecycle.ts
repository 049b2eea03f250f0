import type { Config } from '../config';
import type { Kobo } from '../money';
import { koboToProviderNumber } from '../money';
import { baseReference } from './attempt-references';
import { findBank } from './banks';
import { providerFeeKobo } from './fees';
import type { Scheduler } from './scheduler';
import { isoSeconds, newTransferId } from './sandbox-ids';
import type { ProviderTransactionStatus } from '../provider/provider.types';
import type { SandboxState, SandboxTransfer } from './sandbox.state';
import { resolveProfile, type TransferProfile } from './transfer-profiles';
import type { EventData, ProviderEventType, WebhookSender } from './webhook-sender';

interface TransferRequest {
  amountKobo: Kobo;
  accountNumber: string;
  accountName: string;
  bankCode: string;
  merchantTxRef: string;
  senderName: string;
  narration: string;
}

export interface TransferLifecycle {
  /** The profile a call about this reference and destination is treated with (recorded per base reference on submit). */
  profileFor(call: { reference?: string | undefined; accountNumber?: string | undefined }): TransferProfile;
  /** A reused merchantTxRef returns the original transfer (created: false), never a second payout. */
  submit(request: TransferRequest): { transfer: SandboxTransfer; created: boolean };
  /** A status lookup, which is what settles most magic outcomes; null while the provider's lookup does not see it yet. */
  check(transfer: SandboxTransfer): ProviderTransactionStatus | null;
  /** The provider reverses a transfer it paid out (a late refund); false when it was not SUCCESS. */
  refund(transfer: SandboxTransfer): boolean;
  /** Ends a PROCESSING transfer now (one stuck for days); false when it was not PROCESSING. */
  settleNow(transfer: SandboxTransfer, status: SettledStatus): boolean;
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
    customer: {
      senderName: transfer.senderName,
      accountNumber: transfer.accountNumber,
      bankName: findBank(transfer.bankCode)?.name ?? transfer.bankCode,
    },
  };
}

export function createTransferLifecycle(deps: {
  config: Config;
  state: SandboxState;
  scheduler: Scheduler;
  webhooks: WebhookSender;
}): TransferLifecycle {
  const { config, state, scheduler, webhooks } = deps;

  function notify(transfer: SandboxTransfer, status: SettledStatus): void {
    const data = payoutEventData(transfer, status);
    if (transfer.profile.webhooks === 'normal') {
      void webhooks.send(EVENT_TYPES[status], data);
      return;
    }
    // A provider that retries with fresh request ids and delivers late: twice each, success after the refund.
    const heldBack = status === 'SUCCESS' ? config.SANDBOX_REFUND_DELAY * 2 : 0;
    scheduler.after(heldBack, () => {
      void webhooks.send(EVENT_TYPES[status], data);
      void webhooks.send(EVENT_TYPES[status], data);
    });
  }

  function settle(transfer: SandboxTransfer, status: SettledStatus): void {
    const previous = transfer.status;
    transfer.status = status;
    transfer.updatedAt = new Date().toISOString();
    const debitKobo = transfer.amountKobo + transfer.feeKobo;
    if (status === 'SUCCESS') {
      transfer.paidOut = true;
      state.walletBalanceKobo -= debitKobo;
    }
    if (status === 'REFUND') {
      // A refund of a failed transfer returns a debit that never left: the wallet is unchanged.
      if (previous === 'SUCCESS') state.walletBalanceKobo += debitKobo;
      transfer.statusBeforeRefund = previous;
      transfer.refundVisibleAtMs = Date.now() + transfer.profile.refundLookupLagMs;
    }
    notify(transfer, status);
  }

  /**
   * A refund the profile asks for (after success, or of a failed debit) comes SANDBOX_REFUND_DELAY after
   * a lookup first showed the final status, as a real one comes long after the transfer was seen
   * settled: never before the merchant could have seen how it ended.
   */
  function scheduleProfileRefund(transfer: SandboxTransfer): void {
    const wanted =
      (transfer.status === 'SUCCESS' && transfer.profile.refundAfterSuccess) ||
      (transfer.status === 'PAYMENT_FAILED' && transfer.profile.refundAfterFailure);
    if (!wanted || transfer.refundScheduled) return;
    transfer.refundScheduled = true;
    scheduler.after(config.SANDBOX_REFUND_DELAY, () => {
      if (transfer.status === 'SUCCESS' || transfer.status === 'PAYMENT_FAILED') settle(transfer, 'REFUND');
    });
  }

  function profileFor(call: { reference?: string | undefined; accountNumber?: string | undefined }): TransferProfile {
    if (call.accountNumber === undefined && call.reference !== undefined) {
      const known = state.profilesByBase.get(baseReference(call.reference));
      if (known) return known;
    }
    return resolveProfile(config, state.profileRules, call);
  }

  return {
    profileFor(call) {
      const profile = profileFor(call);
      if (call.reference !== undefined && call.accountNumber !== undefined)
        state.profilesByBase.set(baseReference(call.reference), profile);
      return profile;
    },

    submit(request) {
      const existing = state.transferByReference(request.merchantTxRef);
      if (existing) return { transfer: existing, created: false };

      const base = baseReference(request.merchantTxRef);
      const submissionNumber = (state.submissionsPerBaseReference.get(base) ?? 0) + 1;
      state.submissionsPerBaseReference.set(base, submissionNumber);
      const profile = profileFor({ reference: request.merchantTxRef, accountNumber: request.accountNumber });
      const now = new Date();
      const transfer: SandboxTransfer = {
        id: newTransferId(),
        ...request,
        submissionNumber,
        feeKobo: providerFeeKobo(request.amountKobo),
        profile,
        final: submissionNumber <= profile.failFirstSubmissions ? 'PAYMENT_FAILED' : profile.final,
        status: 'PROCESSING',
        visibleAtMs: now.getTime() + profile.lookupLagMs,
        hiddenLookupsLeft: profile.hiddenLookups,
        statusBeforeRefund: null,
        refundVisibleAtMs: 0,
        refundScheduled: false,
        paidOut: false,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      };
      state.transfers.set(transfer.id, transfer);
      state.transferIdsByReference.set(transfer.merchantTxRef, transfer.id);
      if (profile.processingMs !== null) {
        scheduler.after(profile.processingMs, () => {
          if (transfer.status === 'PROCESSING') settle(transfer, transfer.final);
        });
      }
      return { transfer, created: true };
    },

    check(transfer) {
      if (Date.now() < transfer.visibleAtMs) return null;
      if (transfer.hiddenLookupsLeft > 0) {
        transfer.hiddenLookupsLeft -= 1;
        return null;
      }
      // A lookup after the processing time sees the final status even if its timer has not fired yet (a busy event loop).
      const processingOver =
        transfer.profile.processingMs === null || Date.now() >= Date.parse(transfer.createdAt) + transfer.profile.processingMs;
      if (transfer.status === 'PROCESSING' && processingOver) settle(transfer, transfer.final);
      scheduleProfileRefund(transfer);
      if (transfer.status === 'REFUND' && transfer.statusBeforeRefund && Date.now() < transfer.refundVisibleAtMs)
        return transfer.statusBeforeRefund;
      return transfer.status;
    },

    refund(transfer) {
      if (transfer.status !== 'SUCCESS') return false;
      settle(transfer, 'REFUND');
      return true;
    },

    settleNow(transfer, status) {
      if (transfer.status !== 'PROCESSING') return false;
      settle(transfer, status);
      return true;
    },
  };
}
