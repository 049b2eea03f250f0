import type { Config } from '../config';
import { distinct, keywordListBytes, SEARCH_ATTRIBUTE_BUDGET_BYTES } from './confirmation-batches';
import type { ClaimedBatch } from '../payments/confirmation-claims.repo';
import type { SettlementInput, SettlementWorkflowStatus } from './payloads';
import { paymentConfirmationBatchWorkflowId, reconciliationWorkflowId, settlementRefundWorkflowId, settlementWorkflowId, webhookDeliveryWorkflowId } from './workflow-ids';
import { outboxEntry, type OutboxEntry } from '../outbox/outbox.repo';

type JobsConfig = Pick<
  Config,
  | 'CONFIRMATION_WINDOW'
  | 'CONFIRMATION_POLL_INTERVAL'
  | 'CONFIRMATION_MIN_NOT_FOUND_LOOKUPS'
  | 'WEBHOOK_RETRY_SCHEDULE'
  | 'WEBHOOK_MAX_ATTEMPTS'
  | 'SETTLEMENT_MAX_ATTEMPTS'
  | 'SETTLEMENT_RETRY_SCHEDULE'
  | 'SETTLEMENT_POLL_INTERVAL'
  | 'SETTLEMENT_REFUND_WATCH'
  | 'SETTLEMENT_REFUND_RECHECK'
  | 'RECONCILIATION_PROVIDER_ATTEMPTS'
  | 'PROVIDER_TIMEOUT'
  | 'WEBHOOK_TIMEOUT'
>;

/**
 * How long one settlement activity may run: at worst a token request, the call, and both again after a
 * 401 (four provider calls), plus its database work. It is also how long a worker that died mid-activity
 * holds the settlement up, so it follows the provider's deadline instead of a fixed minute.
 */
export const settlementActivityTimeoutMs = (providerTimeoutMs: number): number => 4 * providerTimeoutMs + 5_000;

/** How long one webhook send may run: the POST (its DNS lookup included) has a hard WEBHOOK_TIMEOUT; the rest is database work. */
export const webhookSendTimeoutMs = (webhookTimeoutMs: number): number => webhookTimeoutMs + 10_000;

/** Builds the outbox entry of every workflow, with its timings taken from config at the moment of the commit. */
export function createJobs(config: JobsConfig) {
  const settlementInput = (settlementId: string, merchantTxRef: string): SettlementInput => ({
    settlementId,
    merchantTxRef,
    maxAttempts: config.SETTLEMENT_MAX_ATTEMPTS,
    retryScheduleMs: [...config.SETTLEMENT_RETRY_SCHEDULE],
    pollIntervalMs: config.SETTLEMENT_POLL_INTERVAL,
    refundWatchMs: config.SETTLEMENT_REFUND_WATCH,
    activityTimeoutMs: settlementActivityTimeoutMs(config.PROVIDER_TIMEOUT),
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
          minNotFoundLookups: config.CONFIRMATION_MIN_NOT_FOUND_LOOKUPS,
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
        {
          deliveryId: input.deliveryId,
          retryScheduleMs: [...config.WEBHOOK_RETRY_SCHEDULE],
          maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
          sendTimeoutMs: webhookSendTimeoutMs(config.WEBHOOK_TIMEOUT),
        },
        { TenantId: input.tenantId, AccountRef: input.accountRef },
      );
    },

    /** `status`: the settlement's status now (a restarted one may be processing already); SettlementStatus starts there. */
    settlement(input: { settlementId: string; merchantTxRef: string; tenantId: string; accountRef: string; status?: SettlementWorkflowStatus }): OutboxEntry {
      return outboxEntry(
        'settlementWorkflow',
        settlementWorkflowId(input.merchantTxRef),
        settlementInput(input.settlementId, input.merchantTxRef),
        { TenantId: input.tenantId, AccountRef: input.accountRef, MerchantTxRef: input.merchantTxRef, SettlementStatus: input.status ?? 'pending' },
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
