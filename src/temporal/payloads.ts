/**
 * Workflow inputs and the values workflows exchange with activities. Pure types: workflow code imports
 * this module, so it must never import anything with side effects. Money travels as kobo strings.
 */

import type { ReconciliationInput } from '../reconciliation/reconciliation.payloads';

export interface PaymentConfirmationInput {
  entryId: string;
  providerTxnRef: string;
  grossAmountKobo: string;
  windowMs: number;
  pollIntervalMs: number;
}

export interface WebhookDeliveryInput {
  deliveryId: string;
  retryScheduleMs: number[];
  maxAttempts: number;
}

export interface SettlementInput {
  settlementId: string;
  merchantTxRef: string;
  maxAttempts: number;
  retryScheduleMs: number[];
  pollIntervalMs: number;
  refundWatchMs: number;
}

export interface SettlementRefundInput {
  settlementId: string;
  merchantTxRef: string;
  /** The per-attempt reference the provider reported as refunded. */
  providerRef: string;
}

export type WorkflowInputs = {
  paymentConfirmationWorkflow: PaymentConfirmationInput;
  webhookDeliveryWorkflow: WebhookDeliveryInput;
  settlementWorkflow: SettlementInput;
  settlementRefundWorkflow: SettlementRefundInput;
  reconciliationWorkflow: ReconciliationInput;
};

export type WorkflowType = keyof WorkflowInputs;

/** What the provider says about a transaction, reduced to what workflows decide on. */
export type ProviderTxnLookup =
  | { kind: 'found'; status: 'SUCCESS' | 'PAYMENT_FAILED' | 'PROCESSING' | 'REFUND'; grossAmountKobo: string; feeKobo: string | null; transactionId: string }
  | { kind: 'not_found' }
  | { kind: 'unavailable'; reason: string };

export type ConfirmationOutcome = 'confirmed' | 'reversed' | 'already_settled';

export interface DeliveryAttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
}

export type SubmissionResult =
  | { kind: 'accepted'; providerTransferId: string | null }
  | { kind: 'rejected'; reason: string }
  | { kind: 'ambiguous'; reason: string }
  | { kind: 'settlement_closed' };

export type DestinationCheck = { kind: 'ok' } | { kind: 'invalid'; reason: string } | { kind: 'closed'; status: SettlementWorkflowStatus };

export type PayoutSignalType = 'payout_success' | 'payout_failed' | 'payout_refund';

/** Signal name the API uses to wake a settlement workflow when the provider's payout webhook arrives. */
export const PAYOUT_SIGNAL = 'payout';

export interface PayoutSignal {
  type: PayoutSignalType;
  providerRef: string;
}

export type SettlementWorkflowStatus = 'pending' | 'processing' | 'success' | 'failed' | 'refunded';

export interface SettlementWorkflowState {
  status: SettlementWorkflowStatus;
  attempt: number;
  providerRef: string | null;
  lastProviderStatus: string | null;
}
