import type { Config } from '../config';
import { distinct, keywordListBytes, SEARCH_ATTRIBUTE_BUDGET_BYTES } from '../payments/confirmation-batches';
import type { ClaimedBatch } from '../payments/confirmation-claims.repo';
import type { SettlementInput } from '../temporal/payloads';
import { paymentConfirmationBatchWorkflowId, reconciliationWorkflowId, settlementRefundWorkflowId, settlementWorkflowId, webhookDeliveryWorkflowId } from '../temporal/workflow-ids';
import { outboxEntry, type OutboxEntry } from './outbox.repo';

type JobsConfig = Pick<
  Config,
  | 'CONFIRMATION_WINDOW'
  | 'CONFIRMATION_POLL_INTERVAL'
  | 'WEBHOOK_RETRY_SCHEDULE'
  | 'WEBHOOK_MAX_ATTEMPTS'
  | 'SETTLEMENT_MAX_ATTEMPTS'
  | 'SETTLEMENT_RETRY_SCHEDULE'
  | 'SETTLEMENT_POLL_INTERVAL'
  | 'SETTLEMENT_REFUND_WATCH'
  | 'SETTLEMENT_REFUND_RECHECK'
  | 'RECONCILIATION_PROVIDER_ATTEMPTS'
>;

/** Builds the outbox entry of every workflow, with its timings taken from config at the moment of the commit. */
export function createJobs(config: JobsConfig) {
  const settlementInput = (settlementId: string, merchantTxRef: string): SettlementInput => ({
    settlementId,
    merchantTxRef,
    maxAttempts: config.SETTLEMENT_MAX_ATTEMPTS,
    retryScheduleMs: [...config.SETTLEMENT_RETRY_SCHEDULE],
    pollIntervalMs: config.SETTLEMENT_POLL_INTERVAL,
    refundWatchMs: config.SETTLEMENT_REFUND_WATCH,
  });

  return {
    /**
     * A batch of one tenant's credits, claimed for it in confirmation_claims. Each payment's window counts
     * from its own posting. Its references are listed in keyword-list search attributes (the batcher cuts
     * batches to fit them; a list that still would not fit is left out rather than fail the start).
     */
    paymentConfirmationBatch(batch: ClaimedBatch): OutboxEntry<'paymentConfirmationBatchWorkflow'> {
      const fitting = (values: string[]): string[] | undefined => (keywordListBytes(values) <= SEARCH_ATTRIBUTE_BUDGET_BYTES ? values : undefined);
      return outboxEntry(
        'paymentConfirmationBatchWorkflow',
        paymentConfirmationBatchWorkflowId(batch.batchId),
        {
          batchId: batch.batchId,
          payments: batch.payments.map((payment) => ({ entryId: payment.entryId, providerTxnRef: payment.providerTxnRef, accountRef: payment.accountRef, postedAtMs: payment.postedAt.getTime() })),
          windowMs: config.CONFIRMATION_WINDOW,
          pollIntervalMs: config.CONFIRMATION_POLL_INTERVAL,
        },
        {
          TenantId: batch.tenantId,
          ProviderTxnRefs: fitting(distinct(batch.payments.map((payment) => payment.providerTxnRef))),
          AccountRefs: fitting(distinct(batch.payments.map((payment) => payment.accountRef))),
        },
      );
    },

    webhookDelivery(input: { deliveryId: string; tenantId: string; accountRef: string }): OutboxEntry {
      return outboxEntry(
        'webhookDeliveryWorkflow',
        webhookDeliveryWorkflowId(input.deliveryId),
        { deliveryId: input.deliveryId, retryScheduleMs: [...config.WEBHOOK_RETRY_SCHEDULE], maxAttempts: config.WEBHOOK_MAX_ATTEMPTS },
        { TenantId: input.tenantId, AccountRef: input.accountRef },
      );
    },

    settlement(input: { settlementId: string; merchantTxRef: string; tenantId: string; accountRef: string }): OutboxEntry {
      return outboxEntry(
        'settlementWorkflow',
        settlementWorkflowId(input.merchantTxRef),
        settlementInput(input.settlementId, input.merchantTxRef),
        { TenantId: input.tenantId, AccountRef: input.accountRef, MerchantTxRef: input.merchantTxRef, SettlementStatus: 'pending' },
      );
    },

    /** One per payout_refund event (`eventId`: its request id), so a later refund event is never swallowed by an earlier one. */
    settlementRefund(input: { settlementId: string; merchantTxRef: string; providerRef: string; eventId: string; tenantId: string; accountRef: string }): OutboxEntry {
      return outboxEntry(
        'settlementRefundWorkflow',
        settlementRefundWorkflowId(input.providerRef, input.eventId),
        {
          settlementId: input.settlementId,
          merchantTxRef: input.merchantTxRef,
          providerRef: input.providerRef,
          recheckMs: config.SETTLEMENT_REFUND_RECHECK,
          pollIntervalMs: config.SETTLEMENT_POLL_INTERVAL,
          settlement: settlementInput(input.settlementId, input.merchantTxRef),
        },
        { TenantId: input.tenantId, AccountRef: input.accountRef, MerchantTxRef: input.merchantTxRef },
      );
    },

    /** An on-demand run (API, dashboard, CLI); a platform run has no tenant. */
    reconciliation(input: { runId: string; tenantId: string | null }): OutboxEntry {
      return outboxEntry(
        'reconciliationWorkflow',
        reconciliationWorkflowId(input.runId),
        { runId: input.runId, providerAttempts: config.RECONCILIATION_PROVIDER_ATTEMPTS },
        input.tenantId ? { TenantId: input.tenantId } : {},
      );
    },
  };
}

export type Jobs = ReturnType<typeof createJobs>;
