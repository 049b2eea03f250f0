import type { Client } from '@temporalio/client';
import type { Db } from '../db';
import type { Logger } from '../logger';
import type { OutboxEntry } from './outbox.repo';
import { createScanWatermarksRepo } from './scan-watermarks.repo';
import type { WorkflowStarter } from './workflow-starter';
import type { WorkflowType } from '../contracts/catalogue';
import type { ResumeResult, RestartResult } from '../contracts/convergence-check.contract';

/** A run that closed as failed: a failure thrown out of the workflow, which only an activity failing for good does. */
export interface FailedRun {
  key: string;
  workflowId: string;
  runId: string;
}

/**
 * A workflow type the convergence check resumes when its run stopped while the job it does is still open. Only
 * types that rebuild their state from the database and whose activities are idempotent qualify: the job
 * picks up where the database says it is, never repeating what is done.
 */
export interface RestartPlan {
  workflowType: WorkflowType;
  /** Names the scan's watermark in `sweep_watermarks`. */
  watermark: string;
  /** The business key a workflow id names, or null for an id of another shape. */
  keyOf(workflowId: string): string | null;
  /** Resumes the jobs of `keys` the database says are still open; the others are done. */
  resume(keys: string[]): Promise<ResumeResult>;
  /**
   * When present, runs that closed as failed are handed here instead of to `resume`: a job whose run
   * failed for good would fail the same way again, every convergence check, for ever. Returns how many it parked.
   */
  park?(runs: FailedRun[]): Promise<number>;
}

/** Visibility is eventually consistent: each scan looks this far back before the last one's start. */
const VISIBILITY_LAG_MS = 5 * 60_000;
const BATCH = 500;

/**
 * Finds open jobs whose workflow is no longer running, without scanning the database: Temporal's
 * visibility lists the runs of the plan's type on this task queue that closed as failed, terminated,
 * timed out or cancelled since the previous scan (a watermark in Postgres); the plan asks the database
 * which of those jobs are still open and resumes them. A run that continued as new or completed is never
 * listed, so a healthy system lists nothing. A scan that could not resume everything leaves the
 * watermark where it was, so the next one tries again.
 */
export function createWorkflowRestarter(deps: { db: Db; client: Client; taskQueue: string; logger: Logger; plan: RestartPlan }) {
  const { db, client, taskQueue, logger, plan } = deps;
  const watermarks = createScanWatermarksRepo(db);

  function query(since: Date | null): string {
    const clauses = [
      `WorkflowType = '${plan.workflowType}'`,
      `TaskQueue = '${taskQueue.replace(/'/g, "\\'")}'`,
      `ExecutionStatus IN ('Failed', 'Terminated', 'TimedOut', 'Canceled')`,
    ];
    if (since) clauses.push(`CloseTime >= '${since.toISOString()}'`);
    return clauses.join(' AND ');
  }

  return {
    async restartStalled(onProgress: () => void = () => undefined): Promise<RestartResult> {
      const scanStartedAt = new Date();
      const watermark = await watermarks.get(plan.watermark);
      const since = watermark ? new Date(watermark.getTime() - VISIBILITY_LAG_MS) : null;
      const result: RestartResult = { closedAbnormally: 0, restarted: 0, failed: 0, ...(plan.park ? { parked: 0 } : {}) };
      let batch = new Set<string>();
      let failedRuns: FailedRun[] = [];
      const flush = async (): Promise<void> => {
        const done = await plan.resume([...batch]);
        result.restarted += done.restarted;
        result.failed += done.failed;
        batch = new Set();
        onProgress();
      };
      const flushFailed = async (): Promise<void> => {
        result.parked = (result.parked ?? 0) + (await plan.park!(failedRuns));
        failedRuns = [];
        onProgress();
      };
      for await (const execution of client.workflow.list({ query: query(since) })) {
        const key = plan.keyOf(execution.workflowId);
        if (key === null) continue;
        result.closedAbnormally += 1;
        if (plan.park && execution.status.name === 'FAILED') {
          failedRuns.push({ key, workflowId: execution.workflowId, runId: execution.runId });
          if (failedRuns.length >= BATCH) await flushFailed();
          continue;
        }
        batch.add(key);
        if (batch.size >= BATCH) await flush();
      }
      if (batch.size > 0) await flush();
      if (failedRuns.length > 0) await flushFailed();
      if (result.failed === 0) await watermarks.advance(plan.watermark, scanStartedAt);
      if (result.restarted > 0)
        logger.info({ ...result, workflowType: plan.workflowType }, 'convergence check resumed jobs whose workflow had stopped');
      return result;
    },
  };
}

export type WorkflowRestarter = ReturnType<typeof createWorkflowRestarter>;

/** Starts each job again under its workflow id; a start that fails is counted and left to the next convergence check. */
export async function startEach(starter: WorkflowStarter, logger: Logger, jobs: OutboxEntry[]): Promise<ResumeResult> {
  let restarted = 0;
  let failed = 0;
  for (const job of jobs) {
    try {
      if ((await starter.start(job)) === 'started') restarted += 1;
    } catch (error) {
      failed += 1;
      logger.warn({ err: error, workflowId: job.workflowId }, 'could not restart a workflow; the next convergence check will');
    }
  }
  return { restarted, failed };
}
