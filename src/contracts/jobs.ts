import type { Config } from '../config';
import { paymentConfirmationBatchJob, type ConfirmationBatchClaim } from './payment-confirmation.contract';
import { reconciliationJob } from './reconciliation.contract';
import { scheduledPayoutJob } from './scheduled-payout.contract';
import { settlementBatchJob } from './settlement-batch.contract';
import { settlementJob, settlementRefundJob } from './settlement.contract';
import { webhookDeliveryJob } from './webhook-delivery.contract';

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
  | 'SETTLEMENT_OVERDUE_AFTER'
  | 'SETTLEMENT_BATCH_CHUNK'
  | 'SETTLEMENT_BATCH_POLL_INTERVAL'
  | 'RECONCILIATION_PROVIDER_ATTEMPTS'
  | 'PROVIDER_TIMEOUT'
  | 'WEBHOOK_TIMEOUT'
>;

/** The job builders of every workflow family, with their timings taken from config at the moment of the commit. */
export function createJobs(config: JobsConfig) {
  return {
    paymentConfirmationBatch: (batch: ConfirmationBatchClaim) => paymentConfirmationBatchJob(config, batch),
    webhookDelivery: (input: Parameters<typeof webhookDeliveryJob>[1]) => webhookDeliveryJob(config, input),
    settlement: (input: Parameters<typeof settlementJob>[1]) => settlementJob(config, input),
    settlementRefund: (input: Parameters<typeof settlementRefundJob>[1]) => settlementRefundJob(config, input),
    settlementBatch: (input: Parameters<typeof settlementBatchJob>[1]) => settlementBatchJob(config, input),
    scheduledPayout: (input: Parameters<typeof scheduledPayoutJob>[0]) => scheduledPayoutJob(input),
    reconciliation: (input: Parameters<typeof reconciliationJob>[1]) => reconciliationJob(config, input),
  };
}

export type Jobs = ReturnType<typeof createJobs>;
