/**
 * The settlement workflow family's contract (the payout and its refund follow-up), shared by the
 * workflows, their activities, the code that starts them and the API that signals them. Workflow code
 * imports this module: it holds only types, pure functions and the SDK's definition helpers
 * (defineSignal/defineQuery only build descriptors, safe outside workflows). Money travels as kobo strings.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ProviderUnavailable } from '../provider/provider-answers';
import type { WorkflowJob } from './workflow-job';

export interface SettlementInput {
  settlementId: string;
  merchantTxRef: string;
  maxAttempts: number;
  retryScheduleMs: number[];
  /** First wait between provider calls; every loop backs off from it ×1.5 to a cap. */
  pollIntervalMs: number;
  refundWatchMs: number;
  /**
   * How long an attempt (or, before the first, the destination check) may stay undecided before the
   * run raises an alert finding; the run goes on. Runs started without it allow DEFAULT_OVERDUE_AFTER_MS.
   */
  overdueAfterMs?: number;
  /**
   * Start-to-close of each settlement activity, from PROVIDER_TIMEOUT: a worker that dies mid-activity
   * delays the settlement this long. Runs started without it allow 45 s.
   */
  activityTimeoutMs?: number;
  /** Where the previous run stopped when it continued as new; absent on the first run. */
  progress?: SettlementProgress;
}

/**
 * Where a run that starts on a settlement already under way picks up (a run the convergence check started again
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
  /** When the current attempt began (before the first: when the run did); absent in runs carried over from before the overdue clock. */
  undecidedSinceMs?: number;
  /** The current attempt's overdue alert has been raised. */
  overdueReported?: boolean;
}

/** The overdue clock of runs whose input predates it: SETTLEMENT_OVERDUE_AFTER's default. */
export const DEFAULT_OVERDUE_AFTER_MS = 15 * 60_000;

/** What a run tells when its overdue clock runs out: where it stands and the provider's last answer. */
export interface OverdueReport {
  stage: 'destination' | 'submit' | 'follow';
  undecidedForMs: number;
  lastProviderStatus: string | null;
}

/** raised: a new alert finding; already_raised: one is open for this attempt; decided: the database shows it decided meanwhile. */
export type OverdueOutcome = 'raised' | 'already_raised' | 'decided';

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

/**
 * What one submission of an attempt's reference got: accepted (the one live provider transfer), duplicate (the
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

/** Workflow ids are business keys: starting one that already ran is a no-op, never a second job. */
export const settlementWorkflowId = (merchantTxRef: string): string => `settlement:${merchantTxRef}`;
/** The merchantTxRef a settlement's workflow id names, or null for any other id. */
export const merchantTxRefOfSettlement = (workflowId: string): string | null =>
  workflowId.startsWith('settlement:') ? workflowId.slice('settlement:'.length) || null : null;
/** Per refund event: the attempt's reference and the provider's request id of the payout_refund event. */
export const settlementRefundWorkflowId = (providerRef: string, eventId: string): string => `settlement-refund:${providerRef}:${eventId}`;

/** The API signals provider news through this; the dashboard and tests read a run's state through the query. */
export const payoutSignal = defineSignal<[PayoutSignal]>('payout');
export const settlementStatusQuery = defineQuery<SettlementWorkflowState>('status');

/**
 * How long one settlement activity may run: at worst a token request, the call, and both again after a
 * 401 (four provider calls), plus its database work. It is also how long a worker that died mid-activity
 * holds the settlement up, so it follows the provider's deadline instead of a fixed minute.
 */
export const settlementActivityTimeoutMs = (providerTimeoutMs: number): number => 4 * providerTimeoutMs + 5_000;

/** The timings a settlement run takes from configuration at the moment its job is committed. */
export interface SettlementTimings {
  SETTLEMENT_MAX_ATTEMPTS: number;
  SETTLEMENT_RETRY_SCHEDULE: readonly number[];
  SETTLEMENT_POLL_INTERVAL: number;
  SETTLEMENT_REFUND_WATCH: number;
  SETTLEMENT_REFUND_RECHECK: number;
  SETTLEMENT_OVERDUE_AFTER: number;
  PROVIDER_TIMEOUT: number;
}

export function settlementInput(timings: SettlementTimings, settlementId: string, merchantTxRef: string): SettlementInput {
  return {
    settlementId,
    merchantTxRef,
    maxAttempts: timings.SETTLEMENT_MAX_ATTEMPTS,
    retryScheduleMs: [...timings.SETTLEMENT_RETRY_SCHEDULE],
    pollIntervalMs: timings.SETTLEMENT_POLL_INTERVAL,
    refundWatchMs: timings.SETTLEMENT_REFUND_WATCH,
    overdueAfterMs: timings.SETTLEMENT_OVERDUE_AFTER,
    activityTimeoutMs: settlementActivityTimeoutMs(timings.PROVIDER_TIMEOUT),
  };
}

/** `status`: the settlement's status now (a restarted one may be processing already); SettlementStatus starts there. */
export function settlementJob(
  timings: SettlementTimings,
  input: { settlementId: string; merchantTxRef: string; tenantId: string; accountRef: string; status?: SettlementWorkflowStatus },
): WorkflowJob<'settlementWorkflow', SettlementInput> {
  return {
    workflowType: 'settlementWorkflow',
    workflowId: settlementWorkflowId(input.merchantTxRef),
    args: settlementInput(timings, input.settlementId, input.merchantTxRef),
    searchAttributes: {
      TenantId: input.tenantId,
      AccountRef: input.accountRef,
      MerchantTxRef: input.merchantTxRef,
      SettlementStatus: input.status ?? 'pending',
    },
  };
}

/** One per payout_refund event (`eventId`: its request id), so a later refund event is never swallowed by an earlier one. */
export function settlementRefundJob(
  timings: SettlementTimings,
  input: { settlementId: string; merchantTxRef: string; providerRef: string; eventId: string; tenantId: string; accountRef: string },
): WorkflowJob<'settlementRefundWorkflow', SettlementRefundInput> {
  return {
    workflowType: 'settlementRefundWorkflow',
    workflowId: settlementRefundWorkflowId(input.providerRef, input.eventId),
    args: {
      settlementId: input.settlementId,
      merchantTxRef: input.merchantTxRef,
      providerRef: input.providerRef,
      recheckMs: timings.SETTLEMENT_REFUND_RECHECK,
      pollIntervalMs: timings.SETTLEMENT_POLL_INTERVAL,
      settlement: settlementInput(timings, input.settlementId, input.merchantTxRef),
    },
    searchAttributes: { TenantId: input.tenantId, AccountRef: input.accountRef, MerchantTxRef: input.merchantTxRef },
  };
}

/**
 * Money going out, and a tenant waiting on it: the outbox starts these first. A settlement may run again
 * after a failed, terminated, timed-out or cancelled run (the convergence check restarts it; it rebuilds from the
 * database); a completed one stays done. Temporal never lets two runs of one id be open at once.
 */
export const SETTLEMENT_START_POLICY = { priority: 0, reusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' } as const;
export const SETTLEMENT_REFUND_START_POLICY = { priority: 0, reusePolicy: 'REJECT_DUPLICATE' } as const;
