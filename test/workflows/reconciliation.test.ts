import { Context, ApplicationFailure } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { PageProgress } from '../../src/reconciliation/reconciliation-execution.service';
import { RECONCILIATION_STATUS } from '../../src/contracts/search-attributes';
import { reconciliationWorkflow } from '../../workflows/reconciliation.workflow';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, sharedTimeSkippingEnvironment, testWorker } from '../helpers/temporal';
import { assertPauses, type ClockReading, readClocks } from '../helpers/workflow-clock';
import type {
  ReconciliationInput,
  ReconciliationPagesResult,
  ReconciliationPosition,
  ReconciliationRunHandle,
  ReconciliationSummary,
  ReconciliationWorkflowState,
} from '../../src/contracts/reconciliation.contract';

const ROWS_PER_PAGE = 500;

const handle: ReconciliationRunHandle = {
  runId: 'run-1',
  tenantId: null,
  windowFrom: '2026-11-21T00:00:00.000Z',
  windowTo: '2026-11-23T00:00:00.000Z',
};

/**
 * A provider listing of `totalPages` pages behind activities that behave like the real ones: each call
 * takes up to `pagesPerCall` pages, heartbeats its progress after every page and resumes from the last
 * heartbeat when retried. `crashAt` makes the first attempt of the call that reaches that page fail
 * right after heartbeating it (a worker killed mid-window).
 */
function listingActivities(options: { totalPages: number; pagesPerCall: number; crashAt?: number }) {
  const processed: number[] = [];
  const resumedFrom: number[] = [];
  let crashed = false;
  const failures: string[] = [];
  const pageOf = (position: ReconciliationPosition | null): number => (position?.cursor ? Number(position.cursor) : 0);
  return {
    processed,
    resumedFrom,
    failures,
    activities: {
      async openScheduledReconciliationRun(): Promise<ReconciliationRunHandle> {
        return handle;
      },
      async beginReconciliationRun(): Promise<ReconciliationRunHandle> {
        return handle;
      },
      async reconcileProviderPages(_runId: string, position: ReconciliationPosition | null): Promise<ReconciliationPagesResult> {
        const context = Context.current();
        const resumed = context.info.heartbeatDetails as PageProgress | undefined;
        if (resumed) resumedFrom.push(pageOf(resumed.position));
        let progress: PageProgress = resumed ?? {
          position: position ?? { source: 'wallet', accountId: null, cursor: null, lookups: 0 },
          pages: 0,
          providerTransactions: 0,
          repaired: 0,
        };
        for (let taken = 0; taken < options.pagesPerCall && progress.position.source !== 'done'; taken += 1) {
          const page = pageOf(progress.position);
          processed.push(page);
          const next = page + 1;
          progress = {
            position:
              next >= options.totalPages
                ? { ...progress.position, source: 'done', cursor: null }
                : { ...progress.position, cursor: String(next) },
            pages: progress.pages + 1,
            providerTransactions: progress.providerTransactions + ROWS_PER_PAGE,
            repaired: progress.repaired,
          };
          context.heartbeat(progress);
          if (options.crashAt === page && !crashed) {
            crashed = true;
            throw new Error('worker lost mid-window');
          }
        }
        return progress;
      },
      async finishReconciliationRun(runId: string): Promise<ReconciliationSummary> {
        return {
          runId,
          outcome: 'clean',
          providerTransactions: new Set(processed).size * ROWS_PER_PAGE,
          matched: 0,
          repaired: 0,
          reported: 0,
          alerts: 0,
          inFlight: 0,
          daysDiffering: 0,
        };
      },
      async failReconciliationRun(_runId: string, reason: string): Promise<void> {
        failures.push(reason);
      },
    },
  };
}

describe('reconciliationWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await sharedTimeSkippingEnvironment();
  });

  /** Runs the workflow on a worker with these activities until it fails; the failure. */
  async function failedRun(activities: object, input: ReconciliationInput): Promise<unknown> {
    const taskQueue = `reconciliation-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    return worker.runUntil(
      env.client.workflow.execute(reconciliationWorkflow, { taskQueue, workflowId: `reconciliation:${randomUUID()}`, args: [input] }).then(
        () => assert.fail('the run should fail'),
        (error: unknown) => error,
      ),
    );
  }

  it('pages a long window through heartbeating activities, resumes a crashed page batch from its last heartbeat, and continues as new', async () => {
    const listing = listingActivities({ totalPages: 40, pagesPerCall: 5, crashAt: 17 });
    const taskQueue = `reconciliation-${randomUUID()}`;
    const workflowId = `reconciliation:${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, listing.activities);
    const input: ReconciliationInput = { runId: 'run-1', providerAttempts: 3, batchesPerExecution: 3 };
    const { summary, state, firstRunHistory, status } = await worker.runUntil(async () => {
      const started = await env.client.workflow.start(reconciliationWorkflow, { taskQueue, workflowId, args: [input] });
      const result = await started.result();
      const latest = env.client.workflow.getHandle(workflowId);
      return {
        summary: result,
        state: await latest.query<ReconciliationWorkflowState>('status'),
        firstRunHistory: await env.client.workflow.getHandle(workflowId, started.firstExecutionRunId).fetchHistory(),
        status: (await latest.describe()).typedSearchAttributes.get(RECONCILIATION_STATUS),
      };
    });

    // Every page once, in order: the retry resumed after page 17, the last one it heartbeated.
    assert.deepEqual(
      listing.processed,
      Array.from({ length: 40 }, (_, page) => page),
    );
    assert.deepEqual(listing.resumedFrom, [18]);
    assert.equal(summary.providerTransactions, 40 * ROWS_PER_PAGE);
    assert.deepEqual(
      {
        phase: state.phase,
        pages: state.progress.pages,
        providerTransactions: state.progress.providerTransactions,
        executions: state.executions,
        position: state.position?.source,
      },
      { phase: 'succeeded', pages: 40, providerTransactions: 40 * ROWS_PER_PAGE, executions: 3, position: 'done' },
    );
    const lastEvent = firstRunHistory.events?.at(-1);
    assert.ok(lastEvent?.workflowExecutionContinuedAsNewEventAttributes, 'the first execution continued as new');
    assert.ok((firstRunHistory.events?.length ?? 0) < 100, `first execution history: ${firstRunHistory.events?.length} events`);
    assert.equal(status, 'clean');
  });

  it('fails the run visibly (marked failed with the reason) when the provider refuses to list', async () => {
    const listing = listingActivities({ totalPages: 10, pagesPerCall: 5 });
    let calls = 0;
    const activities = {
      ...listing.activities,
      async reconcileProviderPages(): Promise<ReconciliationPagesResult> {
        calls += 1;
        throw ApplicationFailure.nonRetryable('provider rejected the request: HTTP 404, code 404: route not found', 'ProviderRejected');
      },
    };
    const failure = await failedRun(activities, { runId: 'run-1', providerAttempts: 5 });
    assert.ok(failure instanceof WorkflowFailedError);
    assert.match(String(failure.cause?.message), /reconciliation run failed: provider rejected the request: HTTP 404/);
    assert.equal(calls, 1, 'a refusal is not retried');
    assert.deepEqual(listing.failures, ['provider rejected the request: HTTP 404, code 404: route not found']);
  });

  it('gives an unreachable provider RECONCILIATION_PROVIDER_ATTEMPTS tries, backing off, before failing the run', async () => {
    const listing = listingActivities({ totalPages: 10, pagesPerCall: 5 });
    const attempts: ClockReading[] = [];
    const activities = {
      ...listing.activities,
      async reconcileProviderPages(): Promise<ReconciliationPagesResult> {
        attempts.push(await readClocks(env));
        throw new Error('listTransactions: HTTP 503');
      },
    };
    await failedRun(activities, { lookBackMs: 3_600_000, graceMs: 0, providerAttempts: 3 });
    assert.equal(attempts.length, 3);
    // Activity retries, which leave no timer in the history: the pauses by the clocks.
    assertPauses(attempts, [2_000, 4_000], 'retries of the provider call');
    assert.deepEqual(listing.failures, ['listTransactions: HTTP 503']);
  });

  it("asks an unanswered call again after a growing pause (at least the provider's Retry-After), and fails the run after RECONCILIATION_PROVIDER_ATTEMPTS unanswered in a row", async () => {
    const listing = listingActivities({ totalPages: 10, pagesPerCall: 5 });
    const position: ReconciliationPosition = { source: 'accounts', accountId: 'a1', cursor: null, lookups: 0, calls: 0 };
    const unanswered = (retryAfterMs: number | null) => ({ reason: 'listTransactions: HTTP 429', retryAfterMs });
    // Two unanswered, one answered (the count starts again), then unanswered until the run fails.
    const answers = [unanswered(5_000), unanswered(null), null, unanswered(null), unanswered(null), unanswered(null)];
    const asked: ClockReading[] = [];
    const askedWith: Array<number | undefined> = [];
    const activities = {
      ...listing.activities,
      async reconcileProviderPages(_runId: string, from: ReconciliationPosition | null): Promise<ReconciliationPagesResult> {
        asked.push(await readClocks(env));
        askedWith.push(from?.calls);
        const answer = answers.shift();
        const calls = (from?.calls ?? 0) + 1;
        const next = { ...(from ?? position), calls };
        return { position: next, pages: 1, providerTransactions: 0, repaired: 0, ...(answer ? { unanswered: answer } : {}) };
      },
    };
    const failure = await failedRun(activities, { runId: 'run-1', providerAttempts: 3 });
    assert.ok(failure instanceof WorkflowFailedError);
    assert.match(String(failure.cause?.message), /listTransactions: HTTP 429/);
    assert.deepEqual(listing.failures, ['listTransactions: HTTP 429']);
    // Every call counted in the position the next step starts from.
    assert.deepEqual(askedWith, [undefined, 1, 2, 3, 4, 5]);
    // None after the answered call.
    assertPauses(asked, [5_000, 3_000, 0, 2_000, 3_000], 'pauses between the calls');
  });
});
