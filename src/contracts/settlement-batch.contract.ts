/**
 * The settlement batch workflow's contract: one run per bulk payout, which initiates the batch's items as
 * ordinary settlements in order, a chunk per activity call, then follows them until every one is final.
 * Workflow code imports this module: types, pure functions and the SDK's definition helpers only.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { WorkflowJob } from './workflow-job';

export interface SettlementBatchInput {
  batchId: string;
  tenantId: string;
  /** Items one activity call judges and initiates at most (SETTLEMENT_BATCH_CHUNK). */
  chunkSize: number;
  /** The wait while the tenant's cap of settlements in flight is full, and between checks for the end (SETTLEMENT_BATCH_POLL_INTERVAL). */
  pollIntervalMs: number;
  /** Carried by continue-as-new; absent on the first run. */
  progress?: SettlementBatchProgress;
}

export interface SettlementBatchProgress {
  phase: 'initiate' | 'follow';
  /** Runs of this batch so far, this one included. */
  runs: number;
  /** Items initiated or refused by earlier runs. */
  judged: number;
}

/**
 * One chunk (or, before a scheduled batch's time, none: `untilScheduled`): `judged` items were initiated or refused (in order). `waitMs` > 0: the
 * chunk stopped early and the next waits this long (the tenant's cap of settlements in flight is full, or the
 * settlements rate limit or the provider said to retry after it). `stopped`: no item waits any more (all
 * judged, or the batch was cancelled).
 */
export interface ChunkResult {
  judged: number;
  waitMs: number;
  stopped: boolean;
  /** The wait is a scheduled batch's time still to come: waited whole (no pacing cap), then the batch starts. */
  untilScheduled?: boolean;
}

export type SettlementBatchEnd = 'completed' | 'completed_with_failures' | 'cancelled';

/** `open`: items still queued or settling; `ended`: every item is final and settlement_batch.completed is recorded. */
export type CompletionCheck = { kind: 'open'; open: number } | { kind: 'ended'; status: SettlementBatchEnd };

export interface SettlementBatchState {
  phase: SettlementBatchProgress['phase'];
  runs: number;
  judged: number;
  /** Items open at the last check of the follow phase (null before it). */
  open: number | null;
}

export const settlementBatchWorkflowId = (batchId: string): string => `settlement-batch:${batchId}`;
/** The batch a workflow id names, or null for an id of another shape. */
export const batchIdOfSettlementBatch = (workflowId: string): string | null =>
  workflowId.startsWith('settlement-batch:') ? workflowId.slice('settlement-batch:'.length) || null : null;

/** The API wakes the run when the batch is cancelled, so it stops initiating without waiting out a pause. */
export const settlementBatchCancelledSignal = defineSignal('cancelled');
export const settlementBatchStatusQuery = defineQuery<SettlementBatchState>('status');

export interface SettlementBatchTimings {
  SETTLEMENT_BATCH_CHUNK: number;
  SETTLEMENT_BATCH_POLL_INTERVAL: number;
}

export function settlementBatchJob(
  timings: SettlementBatchTimings,
  input: { batchId: string; tenantId: string },
): WorkflowJob<'settlementBatchWorkflow', SettlementBatchInput> {
  return {
    workflowType: 'settlementBatchWorkflow',
    workflowId: settlementBatchWorkflowId(input.batchId),
    args: {
      batchId: input.batchId,
      tenantId: input.tenantId,
      chunkSize: timings.SETTLEMENT_BATCH_CHUNK,
      pollIntervalMs: timings.SETTLEMENT_BATCH_POLL_INTERVAL,
    },
    searchAttributes: { TenantId: input.tenantId },
  };
}

/**
 * After the tenant's settlements (its own items' included) and deliveries: a batch only starts more settlements.
 * A run that stopped (terminated, timed out, failed) may be started again under the same id: the
 * convergence check does so while the batch is open, and the new run rebuilds its state from the database.
 */
export const SETTLEMENT_BATCH_START_POLICY = { priority: 1, reusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' } as const;
