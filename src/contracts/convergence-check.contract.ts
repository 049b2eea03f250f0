/**
 * The convergence check's contract: its Schedule's id and what each of its steps reports. Workflow code
 * imports this module: types and pure functions only.
 */

/** The id keeps its first word: a new id would make a second Schedule beside the existing one (docs/glossary.md). */
export const convergenceCheckScheduleId = (taskQueue: string): string => `convergence-sweep:${taskQueue}`;

/** Left-behind outbox rows the convergence check found, and how many it started. */
export interface LeftBehindStartsResult {
  found: number;
  started: number;
  failed: number;
}

/** What resuming a set of stopped jobs did. */
export interface ResumeResult {
  restarted: number;
  failed: number;
}

export interface RestartResult extends ResumeResult {
  /** Runs of the type that ended failed, terminated, timed out or cancelled since the last scan. */
  closedAbnormally: number;
  /** Of those, runs that failed for good and were parked rather than resumed (plans that park only; absent in older results). */
  parked?: number;
}

/** The convergence check's restarts of settlement runs, and of settlement batch and scheduled payout runs (absent in older results). */
export interface SettlementRestartResult extends RestartResult {
  batches?: RestartResult;
  scheduledPayouts?: RestartResult;
}

export interface ClaimReleaseResult {
  /** Batches holding claims for a while, each asked whether it still runs. */
  checked: number;
  /** Of those, batches no longer running (failed, terminated, timed out, never started): their credits went back to the queue. */
  released: number;
  payments: number;
}

export interface SettlementWatchResult {
  /** References the provider answered for. */
  checked: number;
  /** The provider did not answer: the tick stopped there, the rest wait for the next one. */
  unavailable: number;
  /** New alert findings: a watched reference the provider shows paid. */
  raised: number;
}
