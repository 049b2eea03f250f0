/**
 * Workflow inputs and the values workflows exchange with activities. Pure types: workflow code imports
 * this module, so it must never import anything with side effects. Money travels as kobo strings.
 */

export interface PaymentConfirmationInput {
  entryId: string;
  providerTxnRef: string;
  grossAmountKobo: string;
  windowMs: number;
  pollIntervalMs: number;
  /**
   * When the credit was posted (epoch ms): the window counts from here, however late the workflow
   * starts. Runs started before this field existed count from their own start.
   */
  postedAtMs?: number;
  /** What earlier runs of this confirmation learnt, carried over by continue-as-new. */
  progress?: ConfirmationProgress;
}

/** A confirmation's memory across lookups (and across continue-as-new). */
export interface ConfirmationProgress {
  lookups: number;
  /** Workflow time the provider first showed the transaction (in any status); null while it never has. */
  firstSeenAtMs: number | null;
  /** "Not found" answers received while the transaction was never seen. */
  notFoundAnswers: number;
  /** The wait before the next lookup when nothing is decided (backs off to a cap). */
  delayMs: number;
  /** Runs of this confirmation so far, this one included. */
  runs: number;
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
};

export type WorkflowType = keyof WorkflowInputs;

/**
 * What the provider says about a transaction. Workflows decide on `status`; the money-moving
 * activities compare the rest with the database. Optional fields are absent when the provider did not
 * return them (and in lookups recorded before they existed).
 */
export type ProviderTxnLookup =
  | {
      kind: 'found';
      status: 'SUCCESS' | 'PAYMENT_FAILED' | 'PROCESSING' | 'REFUND';
      grossAmountKobo: string;
      feeKobo: string | null;
      transactionId: string;
      /** The virtual account reference the payer paid into (`aliasAccountReference`). */
      accountRef?: string | null;
      type?: string | null;
      merchantTxRef?: string | null;
      currency?: string | null;
    }
  | { kind: 'not_found' }
  | { kind: 'unavailable'; reason: string };

export type ConfirmationOutcome = 'confirmed' | 'reversed' | 'already_settled';

/**
 * What a confirm or reverse activity did after checking the credit against the database and the
 * provider itself: settled it (possibly the other way than asked, e.g. a mismatch found while
 * confirming is reversed), or kept it provisional because the provider does not support the decision.
 */
export type CreditResolution =
  | { kind: 'settled'; outcome: ConfirmationOutcome; reason: string }
  | { kind: 'kept'; lookup: ProviderTxnLookup; reason: string };

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
