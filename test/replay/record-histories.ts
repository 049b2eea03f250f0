/**
 * Records the workflow histories that test/workflows/replay.test.ts replays. On demand only:
 *
 *   npm test -- record-histories
 *
 * It (re)writes test/replay/histories/<workflowType>.<scenario>.json. Record after a change that was
 * made behind `patched()`, adding the new histories beside the old ones (both must replay); replace an
 * old history only when its patch is removed. Files named `*.before-<change>.*` were recorded once by
 * the code before that change (a checkout of it running this recorder) and are kept, not re-recorded,
 * until the patch that keeps them replaying is removed. `--grep <workflowType>` records only that type's
 * scenarios and leaves every other file as it is. The batch confirmation, settlement batch, delivery,
 * convergence check, retention, dynamic-account returns, reservation expiry and scheduled or failed reconciliation scenarios run on the time-skipping server with
 * scripted activities (days pass in seconds); the settlement scenarios and a tenant's reconciliation run use
 * the real API, worker and sandbox on the dev server, so they record whatever those activities are
 * today without any script to keep in step; so does a balance sweep's run, which only a Schedule on the
 * dev server starts as it runs in production (the time-skipping server has no Schedules).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { History } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { convergenceSweepWorkflow } from '../../workflows/convergence-check.workflow';
import { dynamicAccountReturnsWorkflow } from '../../workflows/dynamic-account-returns.workflow';
import { paymentConfirmationBatchWorkflow } from '../../workflows/payment-confirmation-batch.workflow';
import { reconciliationWorkflow } from '../../workflows/reconciliation.workflow';
import { reservationExpiryWorkflow } from '../../workflows/reservation-expiry.workflow';
import { retentionWorkflow } from '../../workflows/retention.workflow';
import { settlementBatchWorkflow } from '../../workflows/settlement-batch.workflow';
import { scheduledPayoutWorkflow } from '../../workflows/scheduled-payout.workflow';
import {
  scheduledPayoutCancelledSignal,
  scheduledPayoutWorkflowId,
  type ScheduledPayoutEnd,
} from '../../src/contracts/scheduled-payout.contract';
import type { ChunkResult, CompletionCheck } from '../../src/contracts/settlement-batch.contract';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery.workflow';
import { fundAccount, provisionAccount } from '../helpers/fixtures';
import { historyToJson } from '../helpers/history-json';
import { call, eventually } from '../helpers/http';
import { createTenant, startStack, type Stack } from '../helpers/stack';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, testWorker, timeSkippingEnvironment } from '../helpers/temporal';
import {
  type BatchConfirmationInput,
  type BatchPaymentResult,
  type BatchRoundResult,
  paymentConfirmationBatchWorkflowId,
} from '../../src/contracts/payment-confirmation.contract';
import type { DeliveryAttemptResult } from '../../src/contracts/webhook-delivery.contract';
import type { ProviderTxnLookup } from '../../src/provider/provider-answers';
import {
  type ReconciliationPagesResult,
  type ReconciliationPosition,
  type ReconciliationRunHandle,
  type ReconciliationSummary,
  reconciliationWorkflowId,
} from '../../src/contracts/reconciliation.contract';
import { settlementRefundWorkflowId, settlementStatusQuery, settlementWorkflowId } from '../../src/contracts/settlement.contract';
import { balanceSweepScheduleId } from '../../src/contracts/balance-sweep.contract';
import type { RetentionResult } from '../../src/contracts/retention.contract';
import type { DynamicAccountReturnsResult } from '../../src/contracts/dynamic-account-returns.contract';
import type { ReservationExpiryResult } from '../../src/contracts/reservation-expiry.contract';

export const HISTORIES_DIR = path.resolve(__dirname, '../../../test/replay/histories');

const HOUR = 3_600_000;

function save(workflowType: string, scenario: string, history: History): void {
  mkdirSync(HISTORIES_DIR, { recursive: true });
  const file = path.join(HISTORIES_DIR, `${workflowType}.${scenario}.json`);
  writeFileSync(file, `${JSON.stringify(historyToJson(history), null, 1)}\n`);
  process.stdout.write(`      recorded ${path.relative(process.cwd(), file)} (${history.events?.length ?? 0} events)\n`);
}

/** Saves a workflow's chain of runs: one file, or its first and last run when it continued as new. */
async function saveChain(
  env: TestWorkflowEnvironment,
  workflowType: string,
  scenario: string,
  handle: { workflowId: string; firstExecutionRunId: string },
): Promise<void> {
  const runs: History[] = [];
  let runId: string | undefined = handle.firstExecutionRunId;
  while (runId) {
    const history: History = await env.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
    runs.push(history);
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  if (runs.length === 1) save(workflowType, scenario, runs[0]!);
  else {
    save(workflowType, `${scenario}.first-run`, runs[0]!);
    save(workflowType, `${scenario}.last-run`, runs.at(-1)!);
  }
}

const found = (status: 'SUCCESS' | 'PROCESSING'): ProviderTxnLookup => ({
  kind: 'found',
  status,
  grossAmountKobo: '502500',
  feeKobo: '2500',
  transactionId: 'txn-1',
  accountRef: 'va_replay_1',
  type: 'vact_transfer',
  merchantTxRef: null,
  currency: null,
});

describe('record workflow histories for the replay test', function () {
  this.timeout(300_000);

  describe('on the time-skipping server, scripted activities', () => {
    let env: TestWorkflowEnvironment;
    before(async function () {
      this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
      env = await timeSkippingEnvironment();
    });
    after(() => env?.teardown());

    /**
     * A batch of three payments: `script(elapsedMs, round, index)` answers for each payment of a round
     * (`null`: skipped after a 429); `throttleAt` rounds answer 429 with a 60 s Retry-After.
     */
    async function batch(
      scenario: string,
      script: (elapsedMs: number, round: number, index: number) => BatchPaymentResult['kind'],
      throttleAt: number[] = [],
    ) {
      let startedAt: number | null = null;
      let rounds = 0;
      const activities = {
        async confirmPaymentBatch(_batchId: string, entryIds: string[]): Promise<BatchRoundResult> {
          startedAt ??= await env.currentTimeMs();
          const elapsed = (await env.currentTimeMs()) - startedAt;
          const round = rounds++;
          const throttled = throttleAt.includes(round);
          return {
            throttledForMs: throttled ? 60_000 : null,
            results: entryIds.map((entryId, index): BatchPaymentResult => {
              if (throttled)
                return index === 0
                  ? {
                      entryId,
                      kind: 'kept',
                      reason: 'provider unreachable: HTTP 429',
                      lookup: { kind: 'unavailable', reason: 'HTTP 429', retryAfterMs: 60_000 },
                    }
                  : { entryId, kind: 'skipped' };
              const kind = script(elapsed, round, Number(entryId.slice(-1)));
              if (kind === 'settled')
                return {
                  entryId,
                  kind,
                  outcome: 'confirmed',
                  reason: 'provider shows it SUCCESS with every field matching',
                  lookup: found('SUCCESS'),
                };
              if (kind === 'kept') return { entryId, kind, reason: 'provider shows it PROCESSING', lookup: found('PROCESSING') };
              return { entryId, kind } as BatchPaymentResult;
            }),
          };
        },
      };
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, activities);
      const now = await env.currentTimeMs();
      const input: BatchConfirmationInput = {
        batchId: randomUUID(),
        // Entry ids end in their index, so the script knows which payment it answers for.
        payments: [0, 1, 2].map((index) => ({
          entryId: `${randomUUID().slice(0, -1)}${index}`,
          providerTxnRef: `API-VACT_TRA-REPLAY-${index}`,
          accountRef: `va_replay_${index}`,
          postedAtMs: now - 60_000,
        })),
        windowMs: 30 * 60_000,
        pollIntervalMs: 2_000,
      };
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(paymentConfirmationBatchWorkflow, {
          taskQueue,
          workflowId: paymentConfirmationBatchWorkflowId(input.batchId),
          args: [input],
        });
        await handle.result();
        await saveChain(env, 'paymentConfirmationBatchWorkflow', scenario, handle);
      });
    }

    it('paymentConfirmationBatchWorkflow: every payment confirmed in one round', () => batch('confirmed', () => 'settled'));

    it('paymentConfirmationBatchWorkflow: one PROCESSING payment waits while the others confirm, one released to another batch', () =>
      batch('processing-and-released', (elapsedMs, _round, index) =>
        index === 2 ? 'released' : index === 0 && elapsedMs < 10 * 60_000 ? 'kept' : 'settled',
      ));

    it('paymentConfirmationBatchWorkflow: a 429 backs off the batch, then confirmed', () => batch('throttled', () => 'settled', [0]));

    // PROCESSING for a day: enough rounds for continue-as-new carrying the one unfinished payment.
    it('paymentConfirmationBatchWorkflow: continues as new with the unfinished payment, then confirmed', () =>
      batch('continued-as-new', (elapsedMs, _round, index) => (index === 0 && elapsedMs < 24 * HOUR ? 'kept' : 'settled')));

    async function delivery(scenario: string, okAt: number | null, maxAttempts: number) {
      let attempts = 0;
      const activities = {
        async sendWebhook(): Promise<DeliveryAttemptResult> {
          attempts += 1;
          const ok = attempts === okAt;
          return {
            ok,
            statusCode: ok ? 200 : 503,
            error: ok ? null : 'HTTP 503',
            durationMs: 12,
            attemptedAt: new Date(await env.currentTimeMs()).toISOString(),
          };
        },
        async recordWebhookAttempt(): Promise<void> {},
      };
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, activities);
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(webhookDeliveryWorkflow, {
          taskQueue,
          workflowId: `webhook-delivery:${randomUUID()}`,
          args: [{ deliveryId: randomUUID(), retryScheduleMs: [2, 5, 11, 24, 53].map((minutes) => minutes * 60_000), maxAttempts }],
        });
        await handle.result();
        save('webhookDeliveryWorkflow', scenario, await handle.fetchHistory());
      });
    }

    it('webhookDeliveryWorkflow: succeeded at the second attempt', () => delivery('succeeded-after-retry', 2, 5));

    it('webhookDeliveryWorkflow: dead letter after every attempt failed', () => delivery('dead-letter', null, 5));

    it('settlementBatchWorkflow: two chunks, a wait for the cap, one open check, then completed with failures', async () => {
      const chunks: ChunkResult[] = [
        { judged: 3, waitMs: 0, stopped: false },
        { judged: 0, waitMs: 5_000, stopped: false },
        { judged: 2, waitMs: 0, stopped: true },
      ];
      const checks: CompletionCheck[] = [
        { kind: 'open', open: 2 },
        { kind: 'ended', status: 'completed_with_failures' },
      ];
      const activities = {
        async initiateBatchItems(): Promise<ChunkResult> {
          return chunks.shift()!;
        },
        async completeBatchIfFinal(): Promise<CompletionCheck> {
          return checks.shift()!;
        },
      };
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, activities);
      const batchId = randomUUID();
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(settlementBatchWorkflow, {
          taskQueue,
          workflowId: `settlement-batch:${batchId}`,
          args: [{ batchId, tenantId: randomUUID(), chunkSize: 3, pollIntervalMs: 2_000 }],
        });
        assert.equal(await handle.result(), 'completed_with_failures');
        save('settlementBatchWorkflow', 'completed-with-failures', await handle.fetchHistory());
      });
    });

    it('settlementBatchWorkflow: a scheduled batch waits for its time, then runs', async () => {
      const chunks: ChunkResult[] = [
        { judged: 0, waitMs: 3 * 24 * 60 * 60_000, stopped: false, untilScheduled: true },
        { judged: 2, waitMs: 0, stopped: true },
      ];
      const activities = {
        async initiateBatchItems(): Promise<ChunkResult> {
          return chunks.shift()!;
        },
        async completeBatchIfFinal(): Promise<CompletionCheck> {
          return { kind: 'ended', status: 'completed' };
        },
      };
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, activities);
      const batchId = randomUUID();
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(settlementBatchWorkflow, {
          taskQueue,
          workflowId: `settlement-batch:${batchId}`,
          args: [{ batchId, tenantId: randomUUID(), chunkSize: 3, pollIntervalMs: 2_000 }],
        });
        assert.equal(await handle.result(), 'completed');
        save('settlementBatchWorkflow', 'scheduled', await handle.fetchHistory());
      });
    });

    /** A payout scheduled `aheadMs` ahead; `cancelAfterMs`: the cancel signal arrives that long after its start. */
    async function scheduledPayout(scenario: string, aheadMs: number, cancelAfterMs: number | null) {
      const activities = {
        async startScheduledPayout(): Promise<ScheduledPayoutEnd> {
          return 'started';
        },
      };
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, activities);
      const merchantTxRef = randomUUID();
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(scheduledPayoutWorkflow, {
          taskQueue,
          workflowId: scheduledPayoutWorkflowId(merchantTxRef),
          args: [{ merchantTxRef, tenantId: randomUUID(), scheduledFor: new Date((await env.currentTimeMs()) + aheadMs).toISOString() }],
        });
        if (cancelAfterMs !== null) {
          await env.sleep(cancelAfterMs);
          await handle.signal(scheduledPayoutCancelledSignal);
        }
        assert.equal(await handle.result(), cancelAfterMs === null ? 'started' : 'cancelled');
        save('scheduledPayoutWorkflow', scenario, await handle.fetchHistory());
      });
    }

    it('scheduledPayoutWorkflow: waits for its time, then starts the payout', () => scheduledPayout('started', 2 * 24 * 60 * 60_000, null));

    it('scheduledPayoutWorkflow: cancelled before its time', () => scheduledPayout('cancelled', 2 * 24 * 60 * 60_000, 60 * 60_000));

    it('convergenceSweepWorkflow: one convergence check', async () => {
      const activities = {
        async sweepOutbox() {
          return { found: 2, started: 2, failed: 0 };
        },
        async restartStalledConfirmations() {
          return { checked: 2, released: 1, payments: 3 };
        },
        async restartStalledSettlements() {
          return { closedAbnormally: 2, restarted: 1, failed: 0, parked: 1 };
        },
        async watchSettlementReferences() {
          return { checked: 3, unavailable: 0, raised: 1 };
        },
      };
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, activities);
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(convergenceSweepWorkflow, {
          taskQueue,
          workflowId: `convergence-sweep-run:${randomUUID()}`,
        });
        await handle.result();
        save('convergenceSweepWorkflow', 'swept', await handle.fetchHistory());
      });
    });
    it('retentionWorkflow: one run', async () => {
      const activities = {
        async applyRetention(): Promise<RetentionResult> {
          return {
            unverifiedEventsDeleted: 3,
            eventPayloadsStripped: 40,
            startedJobsDeleted: 12,
            endedSessionsDeleted: 2,
            unsettledBalanceSweepRunsDeleted: 5,
          };
        },
      };
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, activities);
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(retentionWorkflow, { taskQueue, workflowId: `retention-run:${randomUUID()}` });
        await handle.result();
        save('retentionWorkflow', 'applied', await handle.fetchHistory());
      });
    });
    it('dynamicAccountReturnsWorkflow: one run', async () => {
      const activities = {
        async returnMismatchedPayments(): Promise<DynamicAccountReturnsResult> {
          return { found: 2 };
        },
      };
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, activities);
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(dynamicAccountReturnsWorkflow, {
          taskQueue,
          workflowId: `dynamic-account-returns-run:${randomUUID()}`,
        });
        await handle.result();
        save('dynamicAccountReturnsWorkflow', 'returned', await handle.fetchHistory());
      });
    });
    it('reservationExpiryWorkflow: one run', async () => {
      const activities = {
        async expireDueReservations(): Promise<ReservationExpiryResult> {
          return { expired: 2 };
        },
      };
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, activities);
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(reservationExpiryWorkflow, {
          taskQueue,
          workflowId: `reservation-expiry-run:${randomUUID()}`,
        });
        await handle.result();
        save('reservationExpiryWorkflow', 'expired', await handle.fetchHistory());
      });
    });

    /** A listing of `pages` pages, two a call, behind activities that heartbeat after each page. */
    function reconciliationActivities(pages: number, refusal?: string) {
      const handle: ReconciliationRunHandle = {
        runId: randomUUID(),
        tenantId: null,
        windowFrom: '2026-11-21T00:00:00.000Z',
        windowTo: '2026-11-23T00:00:00.000Z',
      };
      const pageOf = (position: ReconciliationPosition | null): number => (position?.cursor ? Number(position.cursor) : 0);
      return {
        async openScheduledReconciliationRun(): Promise<ReconciliationRunHandle> {
          return handle;
        },
        async beginReconciliationRun(): Promise<ReconciliationRunHandle> {
          return handle;
        },
        async reconcileProviderPages(_runId: string, position: ReconciliationPosition | null): Promise<ReconciliationPagesResult> {
          if (refusal) throw ApplicationFailure.nonRetryable(refusal, 'ProviderRejected');
          const next = Math.min(pageOf(position) + 2, pages);
          const done = next >= pages;
          Context.current().heartbeat({
            position: { source: done ? 'done' : 'wallet', accountId: null, cursor: String(next), lookups: 0 },
          });
          return {
            position: { source: done ? 'done' : 'wallet', accountId: null, cursor: done ? null : String(next), lookups: 0 },
            pages: 2,
            providerTransactions: 1_000,
            repaired: 1,
          };
        },
        async finishReconciliationRun(runId: string): Promise<ReconciliationSummary> {
          return {
            runId,
            outcome: 'repaired',
            providerTransactions: pages * 500,
            matched: pages * 500 - 3,
            repaired: 3,
            reported: 0,
            alerts: 0,
            inFlight: 0,
            daysDiffering: 0,
          };
        },
        async failReconciliationRun(): Promise<void> {},
      };
    }

    it('reconciliationWorkflow: a scheduled run pages a window, continues as new, and finishes', async () => {
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, reconciliationActivities(6));
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(reconciliationWorkflow, {
          taskQueue,
          workflowId: `reconciliation-scheduled:${randomUUID()}`,
          args: [{ lookBackMs: 48 * HOUR, graceMs: 5 * 60_000, providerAttempts: 6, batchesPerExecution: 2 }],
        });
        await handle.result();
        const first = await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory();
        save('reconciliationWorkflow', 'scheduled.first-run', first);
        save('reconciliationWorkflow', 'scheduled.last-run', await env.client.workflow.getHandle(handle.workflowId).fetchHistory());
      });
    });

    it('reconciliationWorkflow: the provider refuses to list, the run fails visibly', async () => {
      const taskQueue = `record-${randomUUID()}`;
      const worker = await testWorker(
        env.nativeConnection,
        taskQueue,
        reconciliationActivities(4, 'provider rejected the request: HTTP 404'),
      );
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(reconciliationWorkflow, {
          taskQueue,
          workflowId: reconciliationWorkflowId(randomUUID()),
          args: [{ runId: randomUUID(), providerAttempts: 3 }],
        });
        await handle.result().catch(() => undefined);
        save('reconciliationWorkflow', 'failed', await handle.fetchHistory());
      });
    });
  });

  describe('on the dev server, the real API, worker and sandbox', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack(
        {
          SETTLEMENT_POLL_INTERVAL: '200ms',
          SETTLEMENT_RETRY_SCHEDULE: '200ms',
          SETTLEMENT_MAX_ATTEMPTS: '2',
          SETTLEMENT_REFUND_WATCH: '1s',
          SANDBOX_REFUND_DELAY: '500ms',
          RECONCILIATION_GRACE: '0ms',
        },
        { worker: true },
      );
    });
    after(() => stack?.close());

    async function settle(accountNumber: string): Promise<string> {
      const tenant = await createTenant(stack);
      const account = await provisionAccount(stack, tenant.apiKey);
      await fundAccount(stack, account.ID, 1_000_000n);
      const response = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
        apiKey: tenant.apiKey,
        body: { amount: '1000.00', bankCode: '058', accountNumber, narration: 'replay history' },
      });
      assert.equal(response.status, 202, response.text);
      return response.body.merchantTxRef as string;
    }

    async function finished(workflowId: string): Promise<History> {
      const handle = stack.infra.temporal.workflow.getHandle(workflowId);
      await eventually(async () => (await handle.describe().catch(() => null))?.status.name === 'COMPLETED', {
        what: `${workflowId} to complete`,
      });
      return handle.fetchHistory();
    }

    it('settlementWorkflow: success, then the refund watch ends', async () => {
      save('settlementWorkflow', 'success', await finished(settlementWorkflowId(await settle('0123456789'))));
    });

    it('settlementWorkflow: every attempt fails, the debit is reversed', async () => {
      save('settlementWorkflow', 'failed', await finished(settlementWorkflowId(await settle('0123451111'))));
    });

    it('settlementWorkflow: refunded during the watch (3333)', async () => {
      save('settlementWorkflow', 'refunded', await finished(settlementWorkflowId(await settle('0123453333'))));
    });

    it('settlementWorkflow: restarted after an operator terminated it while PROCESSING (7777), resumed from the database', async () => {
      const merchantTxRef = await settle('0123457777');
      const handle = stack.infra.temporal.workflow.getHandle(settlementWorkflowId(merchantTxRef));
      await eventually(async () => (await handle.query(settlementStatusQuery)).lastProviderStatus === 'PROCESSING', {
        what: 'the transfer to be PROCESSING',
      });
      await handle.terminate('recording a restart');
      assert.equal((await stack.services.settlementRestarts.restartStalled()).restarted, 1);
      await eventually(async () => (await handle.query(settlementStatusQuery)).lastProviderStatus === 'PROCESSING', {
        what: 'the restarted run to poll',
      });
      const settled = await call(stack.sandboxUrl, 'POST', `/sandbox/transfers/${merchantTxRef}-1/settle`, { body: { status: 'SUCCESS' } });
      assert.equal(settled.status, 200, settled.text);
      save('settlementWorkflow', 'resumed', await finished(settlementWorkflowId(merchantTxRef)));
    });

    it('settlementRefundWorkflow: a refund after the watch ended', async () => {
      const merchantTxRef = await settle('0123456789');
      await finished(settlementWorkflowId(merchantTxRef));
      const providerRef = `${merchantTxRef}-1`;
      const refund = await call(stack.sandboxUrl, 'POST', `/sandbox/transfers/${providerRef}/refund`);
      assert.equal(refund.status, 200, refund.text);
      // One refund workflow per payout_refund event: its id carries the event's request id.
      const sent = await call<{
        events: Array<{ eventType: string; requestId: string; payload: { data: { transaction: { merchantTxRef?: string } } } }>;
      }>(stack.sandboxUrl, 'GET', '/sandbox/webhooks');
      const event = sent.body.events.find(
        (candidate) => candidate.eventType === 'payout_refund' && candidate.payload.data.transaction.merchantTxRef === providerRef,
      );
      assert.ok(event, 'the sandbox sent a payout_refund event');
      save('settlementRefundWorkflow', 'refunded', await finished(settlementRefundWorkflowId(providerRef, event.requestId)));
    });

    it("balanceSweepWorkflow: a run its account's Schedule started settles what was above the threshold", async () => {
      const tenant = await createTenant(stack);
      const account = await provisionAccount(stack, tenant.apiKey);
      await fundAccount(stack, account.ID, 300_000n);
      const beneficiary = await call(stack.apiUrl, 'POST', '/v1/beneficiaries', {
        apiKey: tenant.apiKey,
        body: { bankCode: '058', accountNumber: '0123456789' },
      });
      assert.equal(beneficiary.status, 201, beneficiary.text);
      const sweep = await call(stack.apiUrl, 'PUT', `/v1/accounts/${account.AccountRef}/sweep`, {
        apiKey: tenant.apiKey,
        body: { beneficiaryId: beneficiary.body.id, schedule: { whenAbove: '1000' } },
      });
      assert.equal(sweep.status, 200, sweep.text);
      const schedule = stack.infra.temporal.schedule.getHandle(balanceSweepScheduleId(account.ID));
      try {
        await eventually(() => schedule.describe(), { what: "the account's Schedule" });
        // A triggered run carries the Schedule's time, as a run the Schedule starts when due does.
        await schedule.trigger();
        const action = await eventually(async () => (await schedule.describe()).info.recentActions[0], { what: 'the triggered run' });
        const run = stack.infra.temporal.workflow.getHandle(action.action.workflow.workflowId);
        assert.equal((await run.result()).outcome, 'settled');
        save('balanceSweepWorkflow', 'scheduled-settled', await run.fetchHistory());
      } finally {
        // Schedules outlive the run's task queue on the shared dev server: none is left behind.
        await schedule.delete().catch(() => undefined);
      }
    });

    it("reconciliationWorkflow: a tenant's run credits a payment whose webhook never came", async () => {
      const tenant = await createTenant(stack);
      const account = await provisionAccount(stack, tenant.apiKey);
      const from = new Date(Date.now() - 1_000).toISOString();
      const paid = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
        body: { accountRef: account.AccountRef, amount: 2010, suppressWebhook: true },
      });
      assert.equal(paid.status, 200, paid.text);
      const run = await call(stack.apiUrl, 'POST', '/v1/reconciliation/runs', { apiKey: tenant.apiKey, body: { from } });
      assert.equal(run.status, 202, run.text);
      save('reconciliationWorkflow', 'tenant-run', await finished(reconciliationWorkflowId(run.body.run.ID as string)));
    });
  });
});
