/**
 * Every workflow type the outbox can start, with its input and its start policy, and every custom search
 * attribute the namespace must have. Each entry comes from its family's contract.
 */
import { PAYMENT_CONFIRMATION_BATCH_START_POLICY, type BatchConfirmationInput } from './payment-confirmation.contract';
import { RECONCILIATION_START_POLICY, type ReconciliationInput } from './reconciliation.contract';
import {
  SETTLEMENT_REFUND_START_POLICY,
  SETTLEMENT_START_POLICY,
  type SettlementInput,
  type SettlementRefundInput,
} from './settlement.contract';
import { SCHEDULED_PAYOUT_START_POLICY, type ScheduledPayoutInput } from './scheduled-payout.contract';
import { SETTLEMENT_BATCH_START_POLICY, type SettlementBatchInput } from './settlement-batch.contract';
import { WEBHOOK_DELIVERY_START_POLICY, type WebhookDeliveryInput } from './webhook-delivery.contract';
import type { WorkflowJob, WorkflowStartPolicy } from './workflow-job';

export type WorkflowInputs = {
  paymentConfirmationBatchWorkflow: BatchConfirmationInput;
  webhookDeliveryWorkflow: WebhookDeliveryInput;
  settlementWorkflow: SettlementInput;
  settlementRefundWorkflow: SettlementRefundInput;
  settlementBatchWorkflow: SettlementBatchInput;
  scheduledPayoutWorkflow: ScheduledPayoutInput;
  reconciliationWorkflow: ReconciliationInput;
};

export type WorkflowType = keyof WorkflowInputs;

/** A job of one of the types above, its input typed by its type. */
export type OutboxJob<T extends WorkflowType = WorkflowType> = WorkflowJob<T, WorkflowInputs[T]>;

export const START_POLICIES: Record<WorkflowType, WorkflowStartPolicy> = {
  settlementWorkflow: SETTLEMENT_START_POLICY,
  settlementRefundWorkflow: SETTLEMENT_REFUND_START_POLICY,
  settlementBatchWorkflow: SETTLEMENT_BATCH_START_POLICY,
  scheduledPayoutWorkflow: SCHEDULED_PAYOUT_START_POLICY,
  webhookDeliveryWorkflow: WEBHOOK_DELIVERY_START_POLICY,
  reconciliationWorkflow: RECONCILIATION_START_POLICY,
  paymentConfirmationBatchWorkflow: PAYMENT_CONFIRMATION_BATCH_START_POLICY,
};
