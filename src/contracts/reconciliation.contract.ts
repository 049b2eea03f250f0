/**
 * The reconciliation workflow's contract: its input, the values it exchanges with its activities, its
 * state query's shape, ids and the job that starts an on-demand run. Workflow code imports this module:
 * types and pure functions only.
 */
import type { WorkflowJob } from './workflow-job';

/** Where a run is in the provider's records: the wallet listing (platform runs) or the tenant's accounts, then single lookups. */
export type ReconciliationSource = 'wallet' | 'accounts' | 'lookups' | 'done';

export interface ReconciliationPosition {
  source: ReconciliationSource;
  /** accounts: the account being listed; null before the first. */
  accountId: string | null;
  /** The provider's cursor within the current listing; null for its first page. */
  cursor: string | null;
  /** Single lookups made so far (a run makes at most RECONCILIATION_MAX_LOOKUPS). */
  lookups: number;
  /**
   * Provider calls the run has made so far, answered or not (a tenant's run makes at most
   * RECONCILIATION_RUN_PROVIDER_CALLS); absent counts as 0.
   */
  calls?: number;
}

export interface ReconciliationProgress {
  pages: number;
  providerTransactions: number;
  repaired: number;
}

/** What a run carries into its next execution after continue-as-new. */
export interface ReconciliationCarried {
  runId: string;
  position: ReconciliationPosition;
  progress: ReconciliationProgress;
  executions: number;
}

export interface ReconciliationInput {
  /** The run made by whoever asked for it (the API, the CLI); absent when a Schedule starts the workflow. */
  runId?: string;
  /** A Schedule's run covers the platform over this window, ending `graceMs` ago. */
  lookBackMs?: number;
  graceMs?: number;
  /** Attempts at each provider step before the run fails. */
  providerAttempts: number;
  /** Activity calls per execution before continue-as-new (tests lower it). */
  batchesPerExecution?: number;
  carried?: ReconciliationCarried;
}

export interface ReconciliationRunHandle {
  runId: string;
  tenantId: string | null;
  windowFrom: string;
  windowTo: string;
}

export interface ReconciliationPagesResult {
  position: ReconciliationPosition;
  pages: number;
  providerTransactions: number;
  repaired: number;
  /** The tenant's hourly budget of provider calls is spent: wait this long, then go on from `position`. */
  waitMs?: number;
  /** The provider gave no answer to the last call (counted in `position`): pause, then ask again from `position`. */
  unanswered?: UnansweredCall;
}

/** A provider call that got no answer (network, timeout, 5xx, 429): what went wrong and the provider's Retry-After. */
export interface UnansweredCall {
  reason: string;
  retryAfterMs: number | null;
}

/** clean: nothing found; repaired: repairs only; exceptions: something reported; alert: something reported at alert level. */
export type ReconciliationOutcome = 'clean' | 'repaired' | 'exceptions' | 'alert';

export interface ReconciliationSummary {
  runId: string;
  outcome: ReconciliationOutcome;
  providerTransactions: number;
  matched: number;
  repaired: number;
  reported: number;
  alerts: number;
  inFlight: number;
  daysDiffering: number;
}

export type ReconciliationPhase = 'opening' | 'reconciling' | 'waiting_for_budget' | 'finishing' | 'succeeded' | 'failed';

export interface ReconciliationWorkflowState {
  runId: string | null;
  phase: ReconciliationPhase;
  position: ReconciliationPosition | null;
  progress: ReconciliationProgress;
  executions: number;
  summary: ReconciliationSummary | null;
  error: string | null;
}

export const reconciliationWorkflowId = (runId: string): string => `reconciliation:${runId}`;
/** The Schedule that starts a platform run every RECONCILIATION_INTERVAL. */
export const reconciliationScheduleId = (taskQueue: string): string => `reconciliation:${taskQueue}`;

/** An on-demand run (API, dashboard, CLI); a platform run has no tenant. */
export function reconciliationJob(
  timings: { RECONCILIATION_PROVIDER_ATTEMPTS: number },
  input: { runId: string; tenantId: string | null },
): WorkflowJob<'reconciliationWorkflow', ReconciliationInput> {
  return {
    workflowType: 'reconciliationWorkflow',
    workflowId: reconciliationWorkflowId(input.runId),
    args: { runId: input.runId, providerAttempts: timings.RECONCILIATION_PROVIDER_ATTEMPTS },
    searchAttributes: input.tenantId ? { TenantId: input.tenantId } : {},
  };
}

/** Runs wait behind money going out and deliveries; one run per id. */
export const RECONCILIATION_START_POLICY = { priority: 2, reusePolicy: 'REJECT_DUPLICATE' } as const;
