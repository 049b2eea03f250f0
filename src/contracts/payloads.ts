/**
 * Workflow inputs and the values workflows exchange with activities. Pure types: workflow code imports
 * this module, so it must never import anything with side effects. Money travels as kobo strings.
 */

import type { ReconciliationInput } from './reconciliation-payloads';

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
  /**
   * Spaced "not found" answers that reverse a credit the provider never showed (CONFIRMATION_MIN_NOT_FOUND_LOOKUPS,
   * see notFoundRule). Runs started before this field existed keep their rule: two answers, unspaced.
   */
  minNotFoundLookups?: number;
  /** What earlier runs of this confirmation learnt, carried over by continue-as-new. */
  progress?: ConfirmationProgress;
}

/** A confirmation's memory across lookups (and across continue-as-new). */
export interface ConfirmationProgress {
  lookups: number;
  /** Workflow time the provider first showed the transaction (in any status); null while it never has. */
  firstSeenAtMs: number | null;
  /** "Not found" answers that counted (by the confirmation's NotFoundRule) while the transaction was never seen. */
  notFoundAnswers: number;
  /** Workflow time of the last counted "not found" (null: none yet; absent in progress carried by runs from before it existed). */
  lastNotFoundCountedAtMs?: number | null;
  /** The wait before the next lookup when nothing is decided (backs off to a cap). */
  delayMs: number;
  /** Runs of this confirmation so far, this one included. */
  runs: number;
}

/**
 * A batch of provisional payment credits one tenant received within a short window, claimed for this
 * batch in `confirmation_claims`. Each payment keeps its own window (from its own posting), its own
 * back-off and its own memory; continue-as-new carries only the unfinished ones.
 */
export interface BatchConfirmationInput {
  batchId: string;
  payments: BatchPayment[];
  windowMs: number;
  pollIntervalMs: number;
  /**
   * Spaced "not found" answers that reverse a credit (CONFIRMATION_MIN_NOT_FOUND_LOOKUPS): the batch times
   * its lookups by it; the activity decides by its own configuration. Absent in batches started before it existed.
   */
  minNotFoundLookups?: number;
  /** Runs of this batch so far, this one included (1 when absent). */
  runs?: number;
  /** Workflow time before which no payment of the batch is looked up (the provider's Retry-After). */
  pausedUntilMs?: number;
  /** What earlier runs of this batch settled (carried by continue-as-new). */
  tally?: BatchTally;
}

export interface BatchTally {
  confirmed: number;
  reversed: number;
  alreadySettled: number;
  released: number;
}

export interface BatchPayment {
  entryId: string;
  providerTxnRef: string;
  accountRef: string;
  /** When the credit was posted (epoch ms): its window counts from here. */
  postedAtMs: number;
  /** Absent until the first lookup; carried by continue-as-new. */
  progress?: ConfirmationProgress;
  /** Workflow time of its next lookup (absent: at once). */
  dueAtMs?: number;
}

/** What one round of a batch found for one payment: settled (confirmed, reversed, gone), or still waiting. */
export type BatchPaymentResult =
  | { entryId: string; kind: 'settled'; outcome: ConfirmationOutcome; reason: string; lookup: ProviderTxnLookup | null }
  | { entryId: string; kind: 'kept'; reason: string; lookup: ProviderTxnLookup }
  /** Not looked up this round: the provider throttled the batch first. */
  | { entryId: string; kind: 'skipped' }
  /** Its claim belongs to no batch of this id any more (released, or never this batch's): the batch lets it go. */
  | { entryId: string; kind: 'released' };

export interface BatchRoundResult {
  results: BatchPaymentResult[];
  /** The provider answered 429: the whole batch waits at least this long (its Retry-After). */
  throttledForMs: number | null;
}

export interface WebhookDeliveryInput {
  deliveryId: string;
  retryScheduleMs: number[];
  maxAttempts: number;
  /**
   * Start-to-close of the send activity, from WEBHOOK_TIMEOUT: a worker that dies mid-send delays the
   * delivery this long. Runs started without it allow 2 minutes.
   */
  sendTimeoutMs?: number;
}

export interface SettlementInput {
  settlementId: string;
  merchantTxRef: string;
  maxAttempts: number;
  retryScheduleMs: number[];
  /** First wait between provider calls; every loop backs off from it ×1.5 to a cap. */
  pollIntervalMs: number;
  refundWatchMs: number;
  /**
   * Start-to-close of each settlement activity, from PROVIDER_TIMEOUT: a worker that dies mid-activity
   * delays the settlement this long. Runs started without it allow 45 s.
   */
  activityTimeoutMs?: number;
  /** Where the previous run stopped when it continued as new; absent on the first run. */
  progress?: SettlementProgress;
}

/**
 * Where a run that starts on a settlement already under way picks up (a run the sweep started again
 * after an operator or a deploy stopped the previous one), rebuilt from the attempts in the database:
 * the latest attempt's reference is submitted again when its submission never got an answer
 * (`submit`, the provider dedups it), else followed by lookups (`follow`). Never a new reference.
 */
export interface SettlementResumePoint {
  attempt: number;
  stage: 'submit' | 'follow';
}

/** What a settlement run carries into its next run (continue-as-new). Times are workflow epoch ms. */
export interface SettlementProgress {
  stage: 'destination' | 'submit' | 'follow' | 'pause' | 'watch';
  status: SettlementWorkflowStatus;
  attempt: number;
  delayMs: number;
  /** pause: when the next attempt may be submitted; watch: when the refund watch ends. */
  untilMs: number | null;
  lastProviderStatus: string | null;
}

export interface SettlementRefundInput {
  settlementId: string;
  merchantTxRef: string;
  /** The per-attempt reference the provider's payout_refund event named. */
  providerRef: string;
  /** How long a refund the provider's lookup does not show yet is re-checked. */
  recheckMs: number;
  pollIntervalMs: number;
  /** The settlement's own workflow input: a refund applied here starts a new run under its id, so its latest run shows `refunded`. */
  settlement: SettlementInput;
  progress?: { untilMs: number; delayMs: number };
}

export type WorkflowInputs = {
  paymentConfirmationWorkflow: PaymentConfirmationInput;
  paymentConfirmationBatchWorkflow: BatchConfirmationInput;
  webhookDeliveryWorkflow: WebhookDeliveryInput;
  settlementWorkflow: SettlementInput;
  settlementRefundWorkflow: SettlementRefundInput;
  reconciliationWorkflow: ReconciliationInput;
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
  | ProviderUnavailable;

/** The provider gave no answer (outage, 429, timeout, unreadable body); retryAfterMs is its Retry-After. */
export interface ProviderUnavailable {
  kind: 'unavailable';
  reason: string;
  retryAfterMs?: number;
}

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

/**
 * One submission of an attempt's reference. accepted and duplicate: the provider knows the reference;
 * rejected (a definite 4xx on its first submission) and ambiguous (an unknown or pending code, an
 * unexplained 4xx on a resubmission): lookups decide; unavailable: submit the same reference again later.
 */
/**
 * What one submission of an attempt's reference got: accepted (the one live transfer), duplicate (the
 * reference exists already), rejected (refused with a documented "not created" answer on its first
 * submission: the attempt is failed), ambiguous (any other refusal: it may exist), unavailable (no
 * answer: it may exist). Only `rejected` ends the attempt; the workflow follows every other answer with
 * lookups.
 */
export type SubmissionResult =
  | { kind: 'accepted'; providerTransferId: string | null }
  | { kind: 'duplicate'; reason: string }
  | { kind: 'rejected'; reason: string }
  | { kind: 'ambiguous'; reason: string }
  | ProviderUnavailable
  | { kind: 'settlement_closed'; status: SettlementWorkflowStatus };

/** `resume`: present when the settlement already has attempts (absent in results recorded before it existed). */
export type DestinationCheck =
  | { kind: 'ok'; resume?: SettlementResumePoint }
  | { kind: 'invalid'; reason: string }
  | { kind: 'closed'; status: SettlementWorkflowStatus }
  | ProviderUnavailable;

/**
 * A lookup of the current attempt, acted on by the activity itself: SUCCESS with the settlement's
 * amount confirms the debit (succeeded); PAYMENT_FAILED or REFUND, or a documented "not created"
 * refusal recorded at submit, fails the attempt (failed); "not found" is never a failure: once a
 * reference the provider never acknowledged has been "not found" for the grace, the workflow probes it
 * by submitting the same reference again (probe); anything else is pending.
 */
export type AttemptProgress =
  | { kind: 'pending'; providerStatus: 'PROCESSING' | 'NOT_FOUND'; acknowledged: boolean }
  | { kind: 'probe'; reason: string }
  | { kind: 'succeeded'; status: SettlementWorkflowStatus }
  | { kind: 'failed'; reason: string }
  | { kind: 'settlement_closed'; status: SettlementWorkflowStatus }
  | ProviderUnavailable;

/**
 * A refund re-checked against the database and the provider. refunded: the settlement's successful
 * attempt is REFUND and its debit is reversed (now or before); attempt_refunded: the refund of a failed
 * attempt, recorded on that attempt only; not_refunded: nothing to apply (yet); not_applicable: the
 * reference is no attempt of this settlement.
 */
export type RefundCheck =
  | { kind: 'refunded'; status: SettlementWorkflowStatus }
  | { kind: 'attempt_refunded'; status: SettlementWorkflowStatus }
  | { kind: 'not_refunded'; status: SettlementWorkflowStatus; reason: string }
  | { kind: 'not_applicable'; status: SettlementWorkflowStatus; reason: string }
  | ProviderUnavailable;

export type PayoutSignalType = 'payout_success' | 'payout_failed' | 'payout_refund';

export interface PayoutSignal {
  type: PayoutSignalType;
  providerRef: string;
}

export type SettlementWorkflowStatus = 'pending' | 'processing' | 'success' | 'failed' | 'refunded';

export interface SettlementWorkflowState {
  status: SettlementWorkflowStatus;
  stage: SettlementProgress['stage'];
  attempt: number;
  providerRef: string | null;
  lastProviderStatus: string | null;
}
