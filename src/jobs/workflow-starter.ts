import { setMaxListeners } from 'node:events';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { SearchAttributePair, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Logger } from '../logger';
import { ACCOUNT_REF, MERCHANT_TX_REF, SETTLEMENT_STATUS, TENANT_ID, type WorkflowSearchAttributes } from '../temporal/search-attributes';
import type { WorkflowType } from '../temporal/payloads';
import type { OutboxEntry, OutboxRepo } from './outbox.repo';
import { createRateLimiter } from './rate-limiter';

export interface WorkflowStarterOptions {
  taskQueue: string;
  /**
   * Starts a second from this process. Beyond it a request's starts wait in the outbox for the sweep,
   * which paces itself at the same rate: a burst never takes the CPU Temporal and the API share.
   */
  startsPerSecond: number;
  /** Starts in flight at once; beyond it a start is left to the sweep instead of queueing in memory. */
  maxInFlight?: number;
  /** Whether the server accepts our custom search attributes (the time-skipping test server does not). */
  searchAttributes?: boolean;
}

export interface SweepResult {
  found: number;
  started: number;
  failed: number;
}

/**
 * A workflow id runs once, except a confirmation and a settlement: after a failed, terminated,
 * timed-out or cancelled run it may start again (the sweep restarts it; both rebuild from the
 * database), while a completed one stays done. Temporal never lets two runs of one id be open at once.
 */
const REUSE_POLICY: Partial<Record<WorkflowType, WorkflowIdReusePolicy>> = {
  paymentConfirmationWorkflow: 'ALLOW_DUPLICATE_FAILED_ONLY',
  settlementWorkflow: 'ALLOW_DUPLICATE_FAILED_ONLY',
};

/** A start that cannot reach Temporal gives up after this and is left to the sweep. */
const START_DEADLINE_MS = 10_000;

function searchAttributePairs(values: WorkflowSearchAttributes): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [];
  if (values.TenantId) pairs.push({ key: TENANT_ID, value: values.TenantId });
  if (values.AccountRef) pairs.push({ key: ACCOUNT_REF, value: values.AccountRef });
  if (values.MerchantTxRef) pairs.push({ key: MERCHANT_TX_REF, value: values.MerchantTxRef });
  if (values.SettlementStatus) pairs.push({ key: SETTLEMENT_STATUS, value: values.SettlementStatus });
  return pairs;
}

/**
 * Starts the workflows the outbox holds. Rows are committed first; a start that fails or is slow
 * leaves its row unstarted for the convergence sweep, so a crash or an outage never loses a job.
 */
export function createWorkflowStarter(deps: { client: Client; outbox: OutboxRepo; logger: Logger; options: WorkflowStarterOptions }) {
  const { client, outbox, logger, options } = deps;
  const maxInFlight = options.maxInFlight ?? 256;
  const rate = createRateLimiter(options.startsPerSecond);
  // Starts still running when the process stops are aborted rather than left to fire on a closed connection.
  const shutdown = new AbortController();
  // Every start in flight listens on this one signal.
  setMaxListeners(0, shutdown.signal);
  const pending = new Set<Promise<void>>();
  let inFlight = 0;
  let startedIds: string[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();

  function flushStarted(): Promise<void> {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    const ids = startedIds;
    startedIds = [];
    if (ids.length > 0) {
      flushing = flushing
        .then(() => outbox.markStarted(ids))
        .catch((error: unknown) => logger.warn({ err: error, count: ids.length }, 'could not mark workflows started; the sweep will'));
    }
    return flushing;
  }

  function noteStarted(workflowId: string): void {
    startedIds.push(workflowId);
    if (startedIds.length >= 200) void flushStarted();
    else flushTimer ??= setTimeout(() => void flushStarted(), 25).unref();
  }

  async function start(entry: OutboxEntry): Promise<'started' | 'exists'> {
    try {
      await client.withAbortSignal(shutdown.signal, () =>
        client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
          client.workflow.start(entry.workflowType, {
            taskQueue: options.taskQueue,
            workflowId: entry.workflowId,
            args: [entry.args],
            workflowIdReusePolicy: REUSE_POLICY[entry.workflowType] ?? 'REJECT_DUPLICATE',
            ...(options.searchAttributes === false ? {} : { typedSearchAttributes: searchAttributePairs(entry.searchAttributes) }),
          }),
        ),
      );
      noteStarted(entry.workflowId);
      return 'started';
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        noteStarted(entry.workflowId);
        return 'exists';
      }
      throw error;
    }
  }

  function tracked(entry: OutboxEntry): Promise<void> {
    inFlight += 1;
    const attempt = start(entry)
      .then(() => undefined)
      .catch((error: unknown) => {
        if (!shutdown.signal.aborted) logger.warn({ err: error, workflowId: entry.workflowId }, 'workflow start failed; left to the sweep');
      })
      .finally(() => {
        inFlight -= 1;
        pending.delete(attempt);
      });
    pending.add(attempt);
    return attempt;
  }

  return {
    start,

    /**
     * After a commit: starts the workflows in the background and returns at once. Nobody waits on
     * Temporal (the rows are committed); under load, starts beyond the in-flight limit wait for the sweep.
     */
    kick(entries: OutboxEntry[]): void {
      for (const entry of entries) {
        if (inFlight >= maxInFlight || !rate.tryTake()) return;
        void tracked(entry);
      }
    },

    /** Starts every unstarted workflow older than the grace period; `onProgress` runs after each start. */
    async sweep(graceMs: number, limit: number, options: { concurrency?: number; onProgress?: () => void } = {}): Promise<SweepResult> {
      const concurrency = options.concurrency ?? 16;
      const entries = await outbox.listUnstarted(graceMs, limit);
      let started = 0;
      let failed = 0;
      let next = 0;
      const workers = Array.from({ length: Math.min(concurrency, entries.length) }, async () => {
        while (next < entries.length) {
          const entry = entries[next++]!;
          await rate.take();
          try {
            await start(entry);
            started += 1;
          } catch (error) {
            failed += 1;
            logger.warn({ err: error, workflowId: entry.workflowId }, 'sweep could not start workflow');
          }
          options.onProgress?.();
        }
      });
      await Promise.all(workers);
      await flushStarted();
      return { found: entries.length, started, failed };
    },

    /** Aborts starts still in flight (their rows stay for the sweep) and records the ones that finished. */
    async close(): Promise<void> {
      shutdown.abort();
      await Promise.allSettled([...pending]);
      await flushStarted();
    },
  };
}

export type WorkflowStarter = ReturnType<typeof createWorkflowStarter>;
