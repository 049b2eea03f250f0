/**
 * The payment confirmation workflow's contract (a batch of one tenant's provisional credits), shared by the workflows, their activities and
 * the code that starts them. Workflow code imports this
 * module: types and pure functions only. Money travels as kobo strings.
 */
import type { ProviderTxnLookup } from '../provider/provider-answers';

/** The provider's answer a confirmation decides on, as workflows see it. */
export type { ProviderTxnLookup };
import { distinct, keywordListBytes, SEARCH_ATTRIBUTE_BUDGET_BYTES } from './search-attributes';
import type { WorkflowJob } from './workflow-job';

/** One payment's memory across the lookups of its batch (and across continue-as-new). */
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

export type ConfirmationOutcome = 'confirmed' | 'reversed' | 'already_settled';

/** A batch confirmation; its payments are found by the ProviderTxnRefs and AccountRefs search attributes. */
export const paymentConfirmationBatchWorkflowId = (batchId: string): string => `payment-confirmation-batch:${batchId}`;

/** The timings a batch takes from configuration at the moment it is claimed. */
export interface ConfirmationTimings {
  CONFIRMATION_WINDOW: number;
  CONFIRMATION_POLL_INTERVAL: number;
  CONFIRMATION_MIN_NOT_FOUND_LOOKUPS: number;
}

/** A batch as the claim queue hands it over: one tenant's credits, each with its own posting time. */
export interface ConfirmationBatchClaim {
  batchId: string;
  tenantId: string;
  payments: { entryId: string; providerTxnRef: string; accountRef: string; postedAt: Date }[];
}

/**
 * A batch of one tenant's credits, claimed for it in confirmation_claims. Each payment's window counts
 * from its own posting. Its references are listed in keyword-list search attributes (the batcher cuts
 * batches to fit them; a list that still would not fit is left out rather than fail the start).
 */
export function paymentConfirmationBatchJob(
  timings: ConfirmationTimings,
  batch: ConfirmationBatchClaim,
): WorkflowJob<'paymentConfirmationBatchWorkflow', BatchConfirmationInput> {
  const fitting = (values: string[]): string[] | undefined =>
    keywordListBytes(values) <= SEARCH_ATTRIBUTE_BUDGET_BYTES ? values : undefined;
  return {
    workflowType: 'paymentConfirmationBatchWorkflow',
    workflowId: paymentConfirmationBatchWorkflowId(batch.batchId),
    args: {
      batchId: batch.batchId,
      payments: batch.payments.map((payment) => ({
        entryId: payment.entryId,
        providerTxnRef: payment.providerTxnRef,
        accountRef: payment.accountRef,
        postedAtMs: payment.postedAt.getTime(),
      })),
      windowMs: timings.CONFIRMATION_WINDOW,
      pollIntervalMs: timings.CONFIRMATION_POLL_INTERVAL,
      minNotFoundLookups: timings.CONFIRMATION_MIN_NOT_FOUND_LOOKUPS,
    },
    searchAttributes: {
      TenantId: batch.tenantId,
      ProviderTxnRefs: fitting(distinct(batch.payments.map((payment) => payment.providerTxnRef))),
      AccountRefs: fitting(distinct(batch.payments.map((payment) => payment.accountRef))),
    },
  };
}

/**
 * Confirmations wait behind money going out and deliveries; batches never wait in the outbox (the batcher starts them) and never rerun
 * under one id.
 */
export const PAYMENT_CONFIRMATION_BATCH_START_POLICY = { priority: 2, reusePolicy: 'REJECT_DUPLICATE' } as const;
