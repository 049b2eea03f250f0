import { setMaxListeners } from 'node:events';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { Logger } from '../logger';
import type { WorkflowStartMetrics } from '../metrics/workflow-start.metrics';
import {
  ACCOUNT_REF,
  ACCOUNT_REFS,
  MERCHANT_TX_REF,
  PROVIDER_TXN_REFS,
  SETTLEMENT_STATUS,
  TENANT_ID,
  type WorkflowSearchAttributes,
} from '../contracts/search-attributes';
import type { OutboxEntry, OutboxRepo } from './outbox.repo';
import { createRateLimiter } from './start-rate-limiter';
import { START_POLICIES } from '../contracts/catalogue';
import type { LeftBehindStartsResult } from '../contracts/convergence-check.contract';

export interface WorkflowStarterOptions {
  taskQueue: string;
  /**
   * Starts a second from this process. Beyond it a request's starts wait in the outbox for the convergence check,
   * which paces itself at the same rate: a burst never takes the CPU Temporal and the API share.
   */
  startsPerSecond: number;
  /** Starts in flight at once; beyond it a start is left to the convergence check instead of queueing in memory. */
  maxInFlight?: number;
  /** Whether the server accepts our custom search attributes (the time-skipping test server does not). */
  searchAttributes?: boolean;
  /**
   * Ask the server to hand the first workflow task back in the start's answer (eager start). Only for a
   * client on a worker's own NativeConnection, polling `taskQueue`: the worker's starts.
   */
  eagerStart?: boolean;
}

export interface DrainOptions {
  /** Rows younger than this are left to the process that committed them (it is starting them now). */
  graceMs: number;
  /** Rows leased per pass. */
  limit: number;
  /** Stop leasing new rows after this long. */
  budgetMs?: number;
  /** Stop leasing new rows when aborted (the convergence check's activity was cancelled, the worker is stopping). */
  signal?: AbortSignal;
  concurrency?: number;
  onProgress?: () => void;
}

/** Rows one tenant contributes to a pass at most (the pass takes every tenant's first row before anyone's second). */
const PER_TENANT = 32;
/** A leased row is not taken by another drainer for this long; a start gives up well before (START_DEADLINE_MS). */
const LEASE_MS = 60_000;

/** A start that cannot reach Temporal gives up after this and is left to the convergence check. */
const START_DEADLINE_MS = 10_000;

function searchAttributePairs(values: WorkflowSearchAttributes): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [];
  if (values.TenantId) pairs.push({ key: TENANT_ID, value: values.TenantId });
  if (values.AccountRef) pairs.push({ key: ACCOUNT_REF, value: values.AccountRef });
  if (values.MerchantTxRef) pairs.push({ key: MERCHANT_TX_REF, value: values.MerchantTxRef });
  if (values.SettlementStatus) pairs.push({ key: SETTLEMENT_STATUS, value: values.SettlementStatus });
  if (values.ProviderTxnRefs) pairs.push({ key: PROVIDER_TXN_REFS, value: values.ProviderTxnRefs });
  if (values.AccountRefs) pairs.push({ key: ACCOUNT_REFS, value: values.AccountRefs });
  return pairs;
}

/**
 * Starts the workflows the outbox holds. Rows are committed first; a start that fails or is slow
 * leaves its row unstarted for the convergence check, so a crash or an outage never loses a job.
 */
export function createWorkflowStarter(deps: {
  client: Client;
  outbox: OutboxRepo;
  logger: Logger;
  options: WorkflowStarterOptions;
  metrics?: WorkflowStartMetrics;
}) {
  const { client, outbox, logger, options, metrics } = deps;
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
        .catch((error: unknown) =>
          logger.warn({ err: error, count: ids.length }, 'could not mark workflows started; the convergence check will'),
        );
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
      const handle = await client.withAbortSignal(shutdown.signal, () =>
        client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
          client.workflow.start(entry.workflowType, {
            taskQueue: options.taskQueue,
            workflowId: entry.workflowId,
            args: [entry.args],
            workflowIdReusePolicy: START_POLICIES[entry.workflowType].reusePolicy,
            ...(options.searchAttributes === false ? {} : { typedSearchAttributes: searchAttributePairs(entry.searchAttributes) }),
            ...(options.eagerStart ? { requestEagerStart: true } : {}),
          }),
        ),
      );
      metrics?.started(entry.workflowType, handle.eagerlyStarted);
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

  /** Waits for a start token, unless the deadline passes or the signal aborts first. */
  async function takeToken(deadline: number, signal: AbortSignal | undefined): Promise<boolean> {
    while (!rate.tryTake()) {
      if (Date.now() >= deadline || signal?.aborted || shutdown.signal.aborted) return false;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return true;
  }

  function tracked(entry: OutboxEntry): Promise<void> {
    inFlight += 1;
    const attempt = start(entry)
      .then(() => undefined)
      .catch((error: unknown) => {
        if (!shutdown.signal.aborted)
          logger.warn({ err: error, workflowId: entry.workflowId }, 'workflow start failed; left to the convergence check');
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
     * Temporal (the rows are committed); under load, starts beyond the in-flight limit wait for the convergence check.
     */
    kick(entries: OutboxEntry[]): void {
      for (const entry of entries) {
        if (inFlight >= maxInFlight || !rate.tryTake()) return;
        void tracked(entry);
      }
    },

    /**
     * Starts unstarted workflows older than the grace period, pass after pass, fairly across tenants and
     * by priority (outbox.repo's lease), until the outbox has nothing available, the budget is spent or the
     * signal aborts. Each row is leased before it is started, so two drainers (or a drainer and the convergence check)
     * never start the same row; a start that fails backs its row off (longer each time), so a row that can
     * never start does not hold up the rows behind it.
     */
    async drain(options: DrainOptions): Promise<LeftBehindStartsResult> {
      const deadline = Date.now() + (options.budgetMs ?? Number.POSITIVE_INFINITY);
      const stopped = (): boolean => Date.now() >= deadline || options.signal?.aborted === true || shutdown.signal.aborted;
      const total: LeftBehindStartsResult = { found: 0, started: 0, failed: 0 };
      while (!stopped()) {
        const entries = await outbox.lease({ graceMs: options.graceMs, limit: options.limit, perTenant: PER_TENANT, leaseMs: LEASE_MS });
        if (entries.length === 0) break;
        total.found += entries.length;
        const untried: string[] = [];
        let next = 0;
        const lanes = Array.from({ length: Math.min(options.concurrency ?? 16, entries.length) }, async () => {
          while (next < entries.length) {
            const entry = entries[next++]!;
            if (stopped() || !(await takeToken(deadline, options.signal))) {
              untried.push(entry.workflowId);
              continue;
            }
            try {
              await start(entry);
              total.started += 1;
            } catch (error) {
              total.failed += 1;
              if (!shutdown.signal.aborted)
                logger.warn(
                  { err: error, workflowId: entry.workflowId, attempts: entry.attempts },
                  'workflow start failed; the row backs off',
                );
              await outbox.backOff(entry.workflowId, (error as Error)?.message ?? String(error)).catch(() => undefined);
            }
            options.onProgress?.();
          }
        });
        await Promise.all(lanes);
        await outbox.unlease(untried);
        await flushStarted();
        if (entries.length < options.limit) break;
      }
      return total;
    },

    /** Aborts starts still in flight (their rows stay for the convergence check) and records the ones that finished. */
    async close(): Promise<void> {
      shutdown.abort();
      await Promise.allSettled([...pending]);
      await flushStarted();
    },
  };
}

export type WorkflowStarter = ReturnType<typeof createWorkflowStarter>;
