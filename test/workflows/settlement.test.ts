import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { HISTORY_EVENT_LIMIT } from '../../workflows/continue-as-new';
import { SETTLEMENT_STATUS } from '../../src/contracts/search-attributes';
import { settlementWorkflow } from '../../workflows/settlement.workflow';
import { settlementRefundWorkflow } from '../../workflows/settlement-refund.workflow';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, sharedTimeSkippingEnvironment, testWorker } from '../helpers/temporal';
import {
  assertPauses,
  assertPausesAtMost,
  assertPauseWithin,
  type ClockReading,
  pauseBetween,
  pausesBetween,
  readClocks,
} from '../helpers/workflow-clock';
import {
  type AttemptProgress,
  type DestinationCheck,
  type OverdueOutcome,
  type OverdueReport,
  payoutSignal,
  type RefundCheck,
  type SettlementInput,
  type SettlementRefundInput,
  settlementStatusQuery,
  type SettlementWorkflowStatus,
  type SubmissionResult,
} from '../../src/contracts/settlement.contract';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A provider modelled behind mocked activities, the way the real activities report it. Each answer is
 * either fixed, or a function of the simulated time since the workflow began (`elapsedMs`).
 */
type Answer<T> = T | ((elapsedMs: number, call: number) => T);

interface AttemptScript {
  /** Answers to successive submissions of this attempt's reference (the last one repeats). */
  submit: Array<Answer<SubmissionResult>>;
  /** Answers to successive polls of this attempt (the last one repeats). */
  polls: Array<Answer<AttemptProgress>>;
}

interface ProviderModel {
  destination?: Array<Answer<DestinationCheck>>;
  attempts: AttemptScript[];
  /** Answers of the refund check while watching after success (the last one repeats). */
  refunds?: Array<Answer<RefundCheck>>;
  /** What else happens while the nth refund check is at the provider (before it answers). */
  whileCheckingRefund?: (call: number, ref: string) => Promise<void>;
}

const accepted: SubmissionResult = { kind: 'accepted', providerTransferId: 't-1' };
const processing: AttemptProgress = { kind: 'pending', providerStatus: 'PROCESSING', acknowledged: true };
const notFound: AttemptProgress = { kind: 'pending', providerStatus: 'NOT_FOUND', acknowledged: false };
const succeeded: AttemptProgress = { kind: 'succeeded', status: 'success' };
const failedAttempt: AttemptProgress = { kind: 'failed', reason: 'provider reports PAYMENT_FAILED' };
const noRefund: RefundCheck = { kind: 'not_refunded', status: 'success', reason: 'provider reports SUCCESS' };
const unavailable = (retryAfterMs?: number) => ({
  kind: 'unavailable' as const,
  reason: 'HTTP 503',
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});

function pick<T>(answers: Array<Answer<T>>, call: number, elapsedMs: number): T {
  const answer = answers[Math.min(call, answers.length - 1)]!;
  return typeof answer === 'function' ? (answer as (elapsedMs: number, call: number) => T)(elapsedMs, call) : answer;
}

interface Call {
  kind: 'destination' | 'submit' | 'poll' | 'fail' | 'refund' | 'overdue';
  attemptNo: number;
  ref?: string;
  report?: OverdueReport;
  at: number;
  /** The clocks as the activity ran, for the pauses between calls. */
  clocks: ClockReading;
}

function modelledActivities(env: TestWorkflowEnvironment, model: ProviderModel) {
  const calls: Call[] = [];
  let startedAt: number | null = null;
  const counts = new Map<string, number>();
  const record = async (call: Omit<Call, 'at' | 'clocks'>): Promise<{ call: number; elapsedMs: number }> => {
    // The scheduled time in the workflow's (skipped) clock.
    const at = Context.current().info.currentAttemptScheduledTimestampMs;
    startedAt ??= at;
    const key = `${call.kind}:${call.attemptNo}`;
    const seen = counts.get(key) ?? 0;
    counts.set(key, seen + 1);
    calls.push({ ...call, at, clocks: await readClocks(env) });
    return { call: seen, elapsedMs: at - startedAt };
  };
  const activities = {
    async checkSettlementDestination(): Promise<DestinationCheck> {
      const { call, elapsedMs } = await record({ kind: 'destination', attemptNo: 0 });
      return pick(model.destination ?? [{ kind: 'ok' }], call, elapsedMs);
    },
    async submitSettlementAttempt(_id: string, attemptNo: number): Promise<SubmissionResult> {
      const { call, elapsedMs } = await record({ kind: 'submit', attemptNo });
      return pick(model.attempts[attemptNo - 1]!.submit, call, elapsedMs);
    },
    async pollSettlementAttempt(_id: string, attemptNo: number): Promise<AttemptProgress> {
      const { call, elapsedMs } = await record({ kind: 'poll', attemptNo });
      return pick(model.attempts[attemptNo - 1]!.polls, call, elapsedMs);
    },
    async failSettlement(): Promise<SettlementWorkflowStatus> {
      await record({ kind: 'fail', attemptNo: 0 });
      return 'failed';
    },
    async refundSettlement(_id: string, ref: string): Promise<RefundCheck> {
      const { call, elapsedMs } = await record({ kind: 'refund', attemptNo: 0, ref });
      await model.whileCheckingRefund?.(call, ref);
      return pick(model.refunds ?? [noRefund], call, elapsedMs);
    },
    async reportOverdueSettlement(_id: string, attemptNo: number, report: OverdueReport): Promise<OverdueOutcome> {
      await record({ kind: 'overdue', attemptNo, report });
      return 'raised';
    },
  };
  return { activities, calls };
}

/** The most provider calls that fall in any 60-second window. */
function maxCallsPerMinute(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i += 1) {
    while (sorted[i]! - sorted[j]! >= MINUTE) j += 1;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('settlementWorkflow (time-skipping)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await sharedTimeSkippingEnvironment();
  });

  const baseInput = (merchantTxRef: string): SettlementInput => ({
    settlementId: randomUUID(),
    merchantTxRef,
    maxAttempts: 5,
    retryScheduleMs: [30 * SECOND, MINUTE, 2 * MINUTE, 5 * MINUTE],
    pollIntervalMs: 5 * SECOND,
    refundWatchMs: DAY,
  });

  /** Runs one settlement against the model; `during` runs (in real time) while it is in flight. */
  async function settle(
    model: ProviderModel,
    overrides: Partial<SettlementInput> = {},
    during?: (handle: WorkflowHandle<typeof settlementWorkflow>) => Promise<void>,
  ) {
    const { activities, calls } = modelledActivities(env, model);
    const taskQueue = `settlement-${randomUUID()}`;
    const merchantTxRef = `mtx_${randomUUID().slice(0, 8)}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    const outcome = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(settlementWorkflow, {
        taskQueue,
        workflowId: `settlement:${merchantTxRef}`,
        args: [{ ...baseInput(merchantTxRef), ...overrides }],
      });
      if (during) await during(handle);
      const result = await handle.result();
      const description = await handle.describe();
      return { result, handle, searchStatus: description.typedSearchAttributes.get(SETTLEMENT_STATUS) };
    });
    const of = (kind: Call['kind'], attemptNo?: number) =>
      calls.filter((call) => call.kind === kind && (attemptNo === undefined || call.attemptNo === attemptNo));
    const providerCallTimes = calls.filter((call) => call.kind !== 'fail' && call.kind !== 'overdue').map((call) => call.at);
    return { ...outcome, calls, of, merchantTxRef, providerCallTimes };
  }

  /** Every run of a workflow id, first to last, with its history length. */
  async function runHistories(workflowId: string, firstRunId: string): Promise<number[]> {
    const lengths: number[] = [];
    let runId: string | null | undefined = firstRunId;
    while (runId) {
      const history: temporal.api.history.v1.IHistory = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
      const events: temporal.api.history.v1.IHistoryEvent[] = history.events ?? [];
      lengths.push(events.length);
      runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    }
    return lengths;
  }

  describe('the happy path and the refund watch', () => {
    it('succeeds at the first attempt, then watches for a refund for refundWatchMs, backing off to an hour', async () => {
      const { result, searchStatus, of } = await settle({ attempts: [{ submit: [accepted], polls: [succeeded] }] });
      assert.equal(result, 'success');
      assert.equal(searchStatus, 'success');
      assert.equal(of('overdue').length, 0, 'a day of refund watch after success is no overdue wait');
      assert.deepEqual(
        of('submit').map((call) => call.attemptNo),
        [1],
      );
      const watchClocks = of('refund').map((call) => call.clocks);
      assertPauseWithin(of('poll')[0]!.clocks, watchClocks.at(-1)!, { atLeastMs: 23 * HOUR, atMostMs: DAY + MINUTE }, 'the refund watch');
      assertPauses(watchClocks, [7_500, 11_250, 16_875, 25_313], 'the watch backs off ×1.5 from the 5 s interval');
      assertPausesAtMost(watchClocks, HOUR, 'the watch waits at most an hour');
      assert.ok(watchClocks.length < 60, `${watchClocks.length} refund checks in a day`);
    });

    it('a refund reported while watching reverses the debit: status refunded, and the search attribute says so', async () => {
      const { result, searchStatus, of } = await settle({
        attempts: [{ submit: [accepted], polls: [processing, succeeded] }],
        refunds: [noRefund, noRefund, { kind: 'refunded', status: 'refunded' }],
      });
      assert.equal(result, 'refunded');
      assert.equal(searchStatus, 'refunded');
      assert.equal(of('refund').length, 3);
      assert.ok(of('refund').every((call) => call.ref?.endsWith('-1')));
    });

    it('a refund signal that lands while the last check of the watch is at the provider is read before the run ends', async () => {
      // A settlementRefundWorkflow that finds this run open signals it rather than starting a run. Here its
      // signal arrives while the watch's last check (which still sees no refund) is in flight.
      const { result, searchStatus, of } = await settle(
        {
          attempts: [{ submit: [accepted], polls: [succeeded] }],
          refunds: [noRefund, { kind: 'refunded', status: 'refunded' }],
          whileCheckingRefund: async (call, ref) => {
            if (call > 0) return;
            const execution = Context.current().info.workflowExecution;
            assert.ok(execution, 'a workflow activity');
            await env.client.workflow.getHandle(execution.workflowId).signal(payoutSignal, { type: 'payout_refund', providerRef: ref });
          },
        },
        { pollIntervalMs: HOUR, refundWatchMs: MINUTE },
      );
      assert.equal(result, 'refunded');
      assert.equal(searchStatus, 'refunded');
      assert.equal(of('refund').length, 2, 'one check as the watch ran out, one for the signal');
    });

    it('an outage during the watch is waited out at the provider\'s Retry-After, never taken for "no refund"', async () => {
      const { result, of } = await settle(
        {
          attempts: [{ submit: [accepted], polls: [succeeded] }],
          refunds: [unavailable(10 * MINUTE), { kind: 'refunded', status: 'refunded' }],
        },
        { pollIntervalMs: SECOND },
      );
      assert.equal(result, 'refunded');
      assert.ok(pausesBetween(of('refund').map((call) => call.clocks))[0]!.advancedMs >= 10 * MINUTE);
    });
  });

  describe('attempts and the delays between them', () => {
    it('four failed attempts then success: a new reference each time, after 30 s, 1, 2 and 5 minutes', async () => {
      const failing: AttemptScript = { submit: [accepted], polls: [failedAttempt] };
      const { result, of } = await settle(
        { attempts: [failing, failing, failing, failing, { submit: [accepted], polls: [processing, succeeded] }] },
        { refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      assert.deepEqual(
        of('submit').map((call) => call.attemptNo),
        [1, 2, 3, 4, 5],
      );
      for (const [n, seconds] of [
        [2, 30],
        [3, 60],
        [4, 120],
        [5, 300],
      ] as const) {
        assertPauses(
          [of('poll', n - 1).at(-1)!.clocks, of('submit', n)[0]!.clocks],
          [seconds * SECOND],
          `from attempt ${n - 1} failing to attempt ${n}`,
        );
      }
    });

    it('five failed attempts end in compensation: failed, once, with the search attribute failed', async () => {
      const failing: AttemptScript = { submit: [accepted], polls: [failedAttempt] };
      const { result, searchStatus, of } = await settle({ attempts: Array.from({ length: 5 }, () => failing) });
      assert.equal(result, 'failed');
      assert.equal(searchStatus, 'failed');
      assert.deepEqual(
        of('submit').map((call) => call.attemptNo),
        [1, 2, 3, 4, 5],
      );
      assert.equal(of('fail').length, 1);
      assert.equal(of('refund').length, 0);
    });

    it('a refusal documented as "not created" is followed by a lookup that fails it; then the next reference', async () => {
      // The activity records such a refusal as a failed attempt, so its first poll reports it failed.
      const { result, of } = await settle(
        {
          attempts: [
            { submit: [{ kind: 'rejected', reason: 'refused at submit, not created' }], polls: [failedAttempt] },
            { submit: [accepted], polls: [succeeded] },
          ],
        },
        { refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      assert.deepEqual(
        of('submit').map((call) => call.attemptNo),
        [1, 2],
      );
      assert.ok(of('poll', 1)[0]!.at <= of('submit', 2)[0]!.at);
    });

    it('"not found" past the grace probes the same reference, never a new one: a duplicate answer is then polled to the end', async () => {
      let probed = false;
      const ackedNotFound: AttemptProgress = { kind: 'pending', providerStatus: 'NOT_FOUND', acknowledged: true };
      const polls = (elapsedMs: number): AttemptProgress => {
        if (probed) return elapsedMs >= 40 * MINUTE ? succeeded : ackedNotFound;
        return elapsedMs >= 5 * MINUTE ? { kind: 'probe', reason: 'not found for the grace' } : notFound;
      };
      const probeAnswer = (): SubmissionResult => {
        probed = true;
        return { kind: 'duplicate', reason: 'HTTP 409' };
      };
      const { result, of } = await settle(
        { attempts: [{ submit: [{ kind: 'ambiguous', reason: 'HTTP 400, code 96' }, probeAnswer], polls: [polls] }] },
        { refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      assert.deepEqual(
        of('submit').map((call) => call.attemptNo),
        [1, 1],
        'one reference, submitted twice',
      );
      assert.ok(of('submit', 1)[1]!.at - of('submit', 1)[0]!.at >= 5 * MINUTE, 'the probe came after the grace');
      assert.equal(of('fail').length, 0);
    });

    it('a probe the provider accepts makes that submission the one live transfer, polled to its end', async () => {
      let probed = false;
      const polls = (elapsedMs: number): AttemptProgress =>
        probed ? succeeded : elapsedMs >= 5 * MINUTE ? { kind: 'probe', reason: 'not found for the grace' } : notFound;
      const probeAnswer = (): SubmissionResult => {
        probed = true;
        return accepted;
      };
      const { result, of } = await settle({ attempts: [{ submit: [unavailable(), probeAnswer], polls: [polls] }] }, { refundWatchMs: 0 });
      assert.equal(result, 'success');
      assert.deepEqual(
        of('submit').map((call) => call.attemptNo),
        [1, 1],
      );
    });

    it('a failure the provider states itself (PAYMENT_FAILED) is what moves on to a new reference', async () => {
      const { result, of } = await settle(
        {
          attempts: [
            { submit: [accepted], polls: [processing, failedAttempt] },
            { submit: [accepted], polls: [succeeded] },
          ],
        },
        { refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      assert.deepEqual(
        of('submit').map((call) => call.attemptNo),
        [1, 2],
      );
    });

    it('a duplicate-reference answer is followed to the end: one reference, whatever "not found" lookups say', async () => {
      const lagThenSuccess = (elapsedMs: number): AttemptProgress =>
        elapsedMs >= 20 * MINUTE ? succeeded : { kind: 'pending', providerStatus: 'NOT_FOUND', acknowledged: true };
      const { result, of } = await settle(
        { attempts: [{ submit: [{ kind: 'duplicate', reason: 'HTTP 409' }], polls: [lagThenSuccess] }] },
        { refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      assert.deepEqual(
        of('submit').map((call) => call.attemptNo),
        [1],
      );
    });
  });

  describe('outages and pacing', () => {
    it('rides out ten minutes of outage on submit with the same reference, honouring Retry-After, then pays once', async () => {
      const outage = (elapsedMs: number): SubmissionResult =>
        elapsedMs < 10 * MINUTE ? unavailable(elapsedMs < MINUTE ? 20 * SECOND : undefined) : accepted;
      const { result, of, providerCallTimes } = await settle(
        { attempts: [{ submit: [outage], polls: [succeeded] }] },
        { pollIntervalMs: SECOND, refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      assert.ok(
        of('submit').every((call) => call.attemptNo === 1),
        'an outage never uses up an attempt',
      );
      const submitClocks = of('submit').map((call) => call.clocks);
      assertPauses(submitClocks, [20 * SECOND, 20 * SECOND, 20 * SECOND], 'Retry-After: 20 is honoured');
      assertPausesAtMost(submitClocks, MINUTE, 'back-off capped at 60 s');
      assert.ok(maxCallsPerMinute(providerCallTimes) <= 20, `${maxCallsPerMinute(providerCallTimes)} calls in a minute`);
      assert.equal(of('poll').length, 1);
    });

    it('an unreachable provider during polling backs off the same way and never fails the attempt', async () => {
      const outage = (elapsedMs: number): AttemptProgress => (elapsedMs < 30 * MINUTE ? unavailable() : succeeded);
      const { result, of, providerCallTimes } = await settle(
        { attempts: [{ submit: [accepted], polls: [outage] }] },
        { pollIntervalMs: SECOND, refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      assert.equal(of('submit').length, 1);
      assert.ok(maxCallsPerMinute(providerCallTimes) <= 20);
    });

    it('polls from the 1 s interval ×1.5 to 60 s: at most about 20 provider calls in any minute', async () => {
      const slow = (elapsedMs: number): AttemptProgress => (elapsedMs < 2 * HOUR ? processing : succeeded);
      const { result, of, providerCallTimes } = await settle(
        { attempts: [{ submit: [accepted], polls: [slow] }] },
        { pollIntervalMs: SECOND, refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      const pollClocks = of('poll').map((call) => call.clocks);
      assertPauses(pollClocks, [1_000, 1_500, 2_250, 3_375, 5_063, 7_594], 'polls');
      assertPausesAtMost(pollClocks, MINUTE, 'capped at 60 s');
      assert.ok(
        pausesBetween(pollClocks).some((pause) => pause.advancedMs >= MINUTE),
        'the back-off reaches the 60 s cap',
      );
      assert.ok(maxCallsPerMinute(providerCallTimes) <= 20, `${maxCallsPerMinute(providerCallTimes)} calls in a minute`);
    });

    it('a reference ambiguous for hours stays processing on that one reference: probed after each grace, never failed, never replaced', async function () {
      // About 240 polls at the 60 s cap and a probe every 30 minutes of "not found" after each submission.
      this.timeout(90_000);
      const AMBIGUOUS_FOR = 4 * HOUR;
      const GRACE = 30 * MINUTE;
      let lastSubmittedAt = 0;
      let found = false;
      const submit = (elapsedMs: number): SubmissionResult => {
        lastSubmittedAt = elapsedMs;
        if (elapsedMs < AMBIGUOUS_FOR) return { kind: 'ambiguous', reason: 'HTTP 400, code 96' };
        found = true;
        return { kind: 'duplicate', reason: 'HTTP 409' };
      };
      const polls = (elapsedMs: number): AttemptProgress => {
        if (found) return succeeded;
        return elapsedMs - lastSubmittedAt >= GRACE ? { kind: 'probe', reason: 'not found for the grace' } : notFound;
      };
      let midway: unknown;
      const { result, handle, of } = await settle(
        { attempts: [{ submit: [submit], polls: [polls] }] },
        { refundWatchMs: 0 },
        async (running) => {
          await env.sleep(2 * HOUR);
          midway = {
            state: await running.query(settlementStatusQuery),
            searchStatus: (await running.describe()).typedSearchAttributes.get(SETTLEMENT_STATUS),
          };
        },
      );
      assert.match(JSON.stringify(midway), /"status":"processing","stage":"(follow|submit)","attempt":1,.*"searchStatus":"processing"/);
      assert.equal(result, 'success');
      assert.equal(of('fail').length, 0, 'never failed, never reversed');
      assert.ok(
        of('submit').every((call) => call.attemptNo === 1),
        'never a new reference',
      );
      const submits = pausesBetween(of('submit').map((call) => call.clocks));
      assert.ok(submits.length >= 7, `${submits.length + 1} submissions`);
      assert.ok(
        submits.every((pause) => pause.advancedMs >= GRACE),
        `probes no sooner than the grace: ${submits.map((pause) => pause.advancedMs).join(',')}`,
      );
      const lengths = await runHistories(handle.workflowId, handle.firstExecutionRunId);
      assert.ok(Math.max(...lengths) <= HISTORY_EVENT_LIMIT + 50, `history lengths ${lengths.join(',')}`);
    });

    it('a transfer PROCESSING for eight hours continues as new, keeping every history small, then pays once', async function () {
      // About 480 polls at the 60 s cap (several runs' worth of history; a day only makes more of the same),
      // and the test server takes some 40 ms of real time for each.
      this.timeout(90_000);
      const STUCK_FOR = 8 * HOUR;
      const stuck = (elapsedMs: number): AttemptProgress => (elapsedMs < STUCK_FOR ? processing : succeeded);
      const { result, handle, searchStatus, of } = await settle(
        { attempts: [{ submit: [accepted], polls: [stuck] }] },
        { refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      assert.equal(searchStatus, 'success', 'the status survives continue-as-new');
      assert.equal(of('submit').length, 1);
      assert.equal(of('poll').filter((call) => call.at - of('poll')[0]!.at >= STUCK_FOR).length, 1, 'success is reported once');
      assert.equal(of('overdue').length, 1, 'one overdue alert, however many runs the wait takes');
      const lengths = await runHistories(handle.workflowId, handle.firstExecutionRunId);
      assert.ok(lengths.length >= 3, `${lengths.length} runs`);
      assert.ok(Math.max(...lengths) <= HISTORY_EVENT_LIMIT + 50, `history lengths ${lengths.join(',')}`);
    });
  });

  describe('the overdue clock: no undecided stage waits for ever without an alert', () => {
    const OVERDUE = 20 * MINUTE;
    const overdueOf = (calls: Call[]) => calls.filter((call) => call.kind === 'overdue');

    it('a reference PROCESSING past the clock raises one alert naming the attempt and the answer, and is still followed until it pays', async () => {
      const slow = (elapsedMs: number): AttemptProgress => (elapsedMs < HOUR ? processing : succeeded);
      const { result, calls, of } = await settle(
        { attempts: [{ submit: [accepted], polls: [slow] }] },
        { pollIntervalMs: SECOND, refundWatchMs: 0, overdueAfterMs: OVERDUE },
      );
      assert.equal(result, 'success');
      const [alert, ...more] = overdueOf(calls);
      assert.ok(alert, 'an alert once the clock ran out');
      assert.equal(more.length, 0, 'one alert per attempt');
      assert.equal(alert.attemptNo, 1);
      assert.deepEqual({ stage: alert.report?.stage, last: alert.report?.lastProviderStatus }, { stage: 'follow', last: 'PROCESSING' });
      // At the first poll past the clock, the polls 60 s apart by then.
      assertPauseWithin(
        of('submit')[0]!.clocks,
        alert.clocks,
        { atLeastMs: OVERDUE, atMostMs: OVERDUE + MINUTE },
        'the alert after the attempt began',
      );
      assert.equal(of('submit').length, 1, 'the same reference, never a new one');
    });

    it('a submission no answer comes back for raises the alert in the submit stage; the same reference is sent again all along', async () => {
      const outage = (elapsedMs: number): SubmissionResult => (elapsedMs < HOUR ? unavailable() : accepted);
      const { result, calls, of } = await settle(
        { attempts: [{ submit: [outage], polls: [succeeded] }] },
        { pollIntervalMs: SECOND, refundWatchMs: 0, overdueAfterMs: OVERDUE },
      );
      assert.equal(result, 'success');
      assert.deepEqual(
        overdueOf(calls).map((call) => [call.attemptNo, call.report?.stage, call.report?.lastProviderStatus]),
        [[1, 'submit', 'unavailable']],
      );
      assert.ok(of('submit').every((call) => call.attemptNo === 1));
    });

    it('a destination check the provider never answers raises the alert before any reference exists', async () => {
      const outage = (elapsedMs: number): DestinationCheck => (elapsedMs < HOUR ? unavailable() : { kind: 'ok' });
      const { result, calls } = await settle(
        { destination: [outage], attempts: [{ submit: [accepted], polls: [succeeded] }] },
        { pollIntervalMs: SECOND, refundWatchMs: 0, overdueAfterMs: OVERDUE },
      );
      assert.equal(result, 'success');
      assert.deepEqual(
        overdueOf(calls).map((call) => [call.attemptNo, call.report?.stage]),
        [[0, 'destination']],
      );
    });

    it('a reference refused as a duplicate that no lookup ever shows is probed after each grace with the same reference, and alerted', async () => {
      // Probes at about 7, 14 and 21 minutes: the clock runs out between two lookups.
      const GRACE = 7 * MINUTE;
      let lastSubmittedAt = 0;
      const submit = (elapsedMs: number): SubmissionResult => {
        lastSubmittedAt = elapsedMs;
        return elapsedMs < HOUR ? { kind: 'duplicate', reason: 'HTTP 409 duplicate merchantTxRef' } : accepted;
      };
      const polls = (elapsedMs: number): AttemptProgress => {
        if (elapsedMs >= HOUR) return succeeded;
        return elapsedMs - lastSubmittedAt >= GRACE ? { kind: 'probe', reason: 'not found for the grace' } : notFound;
      };
      const { result, calls, of } = await settle(
        { attempts: [{ submit: [submit], polls: [polls] }] },
        { pollIntervalMs: SECOND, refundWatchMs: 0, overdueAfterMs: OVERDUE },
      );
      assert.equal(result, 'success');
      assert.ok(of('submit').length >= 5, `${of('submit').length} submissions of the one reference`);
      assert.ok(
        of('submit').every((call) => call.attemptNo === 1),
        'never a new reference',
      );
      assert.deepEqual(
        overdueOf(calls).map((call) => [call.attemptNo, call.report?.lastProviderStatus]),
        [[1, 'NOT_FOUND']],
      );
    });

    it('the lookups after a probe go on at the back-off reached before it, never a new burst from the poll interval', async () => {
      const GRACE = 20 * SECOND;
      let lastSubmittedAt = 0;
      let submissions = 0;
      const submit = (elapsedMs: number): SubmissionResult => {
        lastSubmittedAt = elapsedMs;
        submissions += 1;
        return { kind: 'duplicate', reason: 'HTTP 409 duplicate merchantTxRef' };
      };
      const polls = (elapsedMs: number): AttemptProgress => {
        if (submissions >= 3) return succeeded;
        return elapsedMs - lastSubmittedAt >= GRACE ? { kind: 'probe', reason: 'not found for the grace' } : notFound;
      };
      const { result, of } = await settle(
        { attempts: [{ submit: [submit], polls: [polls] }] },
        { pollIntervalMs: SECOND, refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      const [, probe] = of('submit').map((call) => call.at);
      // The probe's answer is looked up at once; the lookups after that wait as long as they did before it.
      const [answerLookup, next] = of('poll').filter((call) => call.at > probe!);
      assert.ok(
        next!.at - answerLookup!.at >= 10 * SECOND,
        `the second lookup after the probe came ${next!.at - answerLookup!.at} ms after the first`,
      );
    });

    it('each new attempt starts its own clock: attempts failed in time raise nothing, and a paid settlement never alerts', async () => {
      const failing: AttemptScript = { submit: [accepted], polls: [processing, failedAttempt] };
      const { result, calls } = await settle(
        { attempts: [failing, failing, failing, { submit: [accepted], polls: [processing, succeeded] }] },
        { pollIntervalMs: SECOND, refundWatchMs: 0, overdueAfterMs: 3 * MINUTE, retryScheduleMs: [2 * MINUTE] },
      );
      assert.equal(result, 'success');
      assert.equal(overdueOf(calls).length, 0, 'the pauses between attempts add up past the clock, no attempt does');
    });
  });

  describe('the destination and a settlement closed elsewhere', () => {
    it('an invalid destination fails the settlement without any submission', async () => {
      const { result, searchStatus, of } = await settle({
        destination: [{ kind: 'invalid', reason: 'destination account not found' }],
        attempts: [],
      });
      assert.equal(result, 'failed');
      assert.equal(searchStatus, 'failed');
      assert.equal(of('submit').length, 0);
      assert.equal(of('fail').length, 1);
    });

    it('a transient error on the destination name lookup is retried with back-off, not turned into a failure', async () => {
      const { result, of } = await settle(
        {
          destination: [unavailable(), unavailable(), unavailable(), { kind: 'ok' }],
          attempts: [{ submit: [accepted], polls: [succeeded] }],
        },
        { refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      assert.equal(of('fail').length, 0);
      assertPauses(
        of('destination').map((call) => call.clocks),
        [5_000, 7_500, 11_250],
        'name lookups',
      );
    });

    it('a settlement closed before it started ends with the database status in SettlementStatus', async () => {
      for (const status of ['success', 'refunded', 'failed'] as const) {
        const { result, searchStatus, of } = await settle({ destination: [{ kind: 'closed', status }], attempts: [] });
        assert.equal(result, status);
        assert.equal(searchStatus, status);
        assert.equal(of('submit').length + of('fail').length, 0);
      }
    });

    it('a settlement closed while in flight (refunded by a refund workflow) ends with that status', async () => {
      const { result, searchStatus } = await settle({
        attempts: [{ submit: [accepted], polls: [processing, { kind: 'settlement_closed', status: 'refunded' }] }],
      });
      assert.equal(result, 'refunded');
      assert.equal(searchStatus, 'refunded');
    });
  });

  describe('a run started again on a settlement under way (the convergence check restarting a terminated one)', () => {
    const untouched: AttemptScript = { submit: [accepted], polls: [succeeded] };

    it('follows the attempt the database holds, never a new reference, and shows processing at once', async () => {
      let whileFollowing: unknown;
      const { result, searchStatus, of } = await settle(
        {
          destination: [{ kind: 'ok', resume: { attempt: 3, stage: 'follow' } }],
          attempts: [untouched, untouched, { submit: [accepted], polls: [processing, processing, succeeded] }],
        },
        { refundWatchMs: 0 },
        async (handle) => {
          // Time does not skip until the test waits for the result: the run sleeps after its first poll.
          for (;;) {
            const state = await handle.query(settlementStatusQuery);
            if (state.lastProviderStatus === 'PROCESSING') break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          whileFollowing = {
            state: await handle.query(settlementStatusQuery),
            searchStatus: (await handle.describe()).typedSearchAttributes.get(SETTLEMENT_STATUS),
          };
        },
      );
      assert.match(
        JSON.stringify(whileFollowing),
        /"stage":"follow","attempt":3,"providerRef":"mtx_[0-9a-f]{8}-3".*"searchStatus":"processing"/,
      );
      assert.equal(result, 'success');
      assert.equal(searchStatus, 'success');
      assert.equal(of('submit').length, 0, 'an acknowledged reference is not submitted again');
      assert.deepEqual([...new Set(of('poll').map((call) => call.attemptNo))], [3]);
    });

    it('an attempt the database shows failed leads to the next reference after the pause, or to compensation after the last', async () => {
      const over: AttemptScript = { submit: [accepted], polls: [failedAttempt] };
      const next = await settle(
        { destination: [{ kind: 'ok', resume: { attempt: 2, stage: 'follow' } }], attempts: [untouched, over, untouched] },
        { refundWatchMs: 0 },
      );
      assert.equal(next.result, 'success');
      assert.deepEqual(
        next.of('submit').map((call) => call.attemptNo),
        [3],
      );
      assertPauses([next.of('poll', 2)[0]!.clocks, next.of('submit', 3)[0]!.clocks], [MINUTE], 'the pause after attempt 2 (1 minute)');

      const last = await settle({
        destination: [{ kind: 'ok', resume: { attempt: 5, stage: 'follow' } }],
        attempts: [untouched, untouched, untouched, untouched, over],
      });
      assert.equal(last.result, 'failed');
      assert.equal(last.of('submit').length, 0);
      assert.equal(last.of('fail').length, 1);
    });

    it('a submission that never got an answer is submitted again under its own reference', async () => {
      const { result, of } = await settle(
        {
          destination: [{ kind: 'ok', resume: { attempt: 2, stage: 'submit' } }],
          attempts: [untouched, { submit: [accepted], polls: [succeeded] }],
        },
        { refundWatchMs: 0 },
      );
      assert.equal(result, 'success');
      assert.deepEqual(
        of('submit').map((call) => call.attemptNo),
        [2],
      );
    });

    it('a result recorded before resume points existed (no `resume`) starts at attempt 1, as then', async () => {
      const { result, of } = await settle({ destination: [{ kind: 'ok' }], attempts: [untouched] }, { refundWatchMs: 0 });
      assert.equal(result, 'success');
      assert.deepEqual(
        of('submit').map((call) => call.attemptNo),
        [1],
      );
    });
  });

  describe('signals and queries', () => {
    it('a payout webhook signal wakes a sleeping workflow long before its next poll', async () => {
      let signalledAt = 0;
      const { result, of } = await settle(
        { attempts: [{ submit: [accepted], polls: [processing, succeeded] }] },
        { pollIntervalMs: HOUR, refundWatchMs: 0 },
        async (handle) => {
          // Only once it sleeps after its first poll (the query answers after that workflow task).
          for (;;) {
            const state = await handle.query(settlementStatusQuery);
            if (state.lastProviderStatus === 'PROCESSING') break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          signalledAt = Date.now();
          await handle.signal(payoutSignal, { type: 'payout_success', providerRef: `${handle.workflowId.replace('settlement:', '')}-1` });
        },
      );
      assert.equal(result, 'success');
      assert.ok(signalledAt > 0);
      const waited = pauseBetween(of('poll')[0]!.clocks, of('poll')[1]!.clocks).skippedMs;
      assert.ok(waited < MINUTE, `the second poll came ${waited} ms (skipped) after the first, not woken by the signal`);
    });

    it('the status query tells the stage, attempt, reference and last provider status', async () => {
      let seen: unknown;
      const { result } = await settle(
        { attempts: [{ submit: [accepted], polls: [processing, succeeded] }] },
        { pollIntervalMs: HOUR, refundWatchMs: 0 },
        async (handle) => {
          for (;;) {
            const state = await handle.query(settlementStatusQuery);
            if (state.lastProviderStatus === 'PROCESSING') {
              seen = state;
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        },
      );
      assert.equal(result, 'success');
      assert.match(
        JSON.stringify(seen),
        /"status":"processing","stage":"follow","attempt":1,"providerRef":"mtx_[0-9a-f]{8}-1","lastProviderStatus":"PROCESSING"/,
      );
    });
  });
});

describe('settlementRefundWorkflow (time-skipping)', function () {
  this.timeout(60_000);
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await sharedTimeSkippingEnvironment();
  });

  async function refundEvent(checks: Array<Answer<RefundCheck>>, options: { settlementRunning?: boolean; recheckMs?: number } = {}) {
    const merchantTxRef = `mtx_${randomUUID().slice(0, 8)}`;
    const settlementInput: SettlementInput = {
      settlementId: randomUUID(),
      merchantTxRef,
      maxAttempts: 5,
      retryScheduleMs: [SECOND],
      pollIntervalMs: 5 * SECOND,
      refundWatchMs: DAY,
    };
    let applied = false;
    const { activities, calls } = modelledActivities(env, {
      // A settlement run started after the refund reads the database: refunded.
      destination: [() => (applied ? { kind: 'closed', status: 'refunded' } : { kind: 'ok' })],
      attempts: [{ submit: [accepted], polls: [succeeded] }],
      refunds: [
        (elapsedMs, call) => {
          const check = pick(checks, call, elapsedMs);
          if (check.kind === 'refunded') applied = true;
          return check;
        },
      ],
    });
    const taskQueue = `refund-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    return worker.runUntil(async () => {
      const settlementHandle = options.settlementRunning
        ? await env.client.workflow.start(settlementWorkflow, {
            taskQueue,
            workflowId: `settlement:${merchantTxRef}`,
            args: [settlementInput],
          })
        : null;
      if (settlementHandle) {
        // Watching for a refund, an hour from its next check.
        for (;;) {
          const state = await settlementHandle.query(settlementStatusQuery);
          if (state.stage === 'watch' && calls.some((call) => call.kind === 'refund')) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      const input: SettlementRefundInput = {
        settlementId: settlementInput.settlementId,
        merchantTxRef,
        providerRef: `${merchantTxRef}-1`,
        recheckMs: options.recheckMs ?? HOUR,
        pollIntervalMs: 5 * SECOND,
        settlement: settlementInput,
      };
      const outcome = await env.client.workflow.execute(settlementRefundWorkflow, {
        taskQueue,
        workflowId: `settlement-refund:${merchantTxRef}-1:${randomUUID()}`,
        args: [input],
      });
      const latest = env.client.workflow.getHandle(`settlement:${merchantTxRef}`);
      const settlementResult = outcome === 'refunded' || settlementHandle ? await latest.result() : null;
      const latestStatus = settlementResult === null ? null : (await latest.describe()).typedSearchAttributes.get(SETTLEMENT_STATUS);
      return { outcome, calls, settlementResult, latestStatus, settlementHandle };
    });
  }

  it('re-checks a refund the lookup does not show yet, with back-off, then applies it and shows it on the settlement id', async () => {
    const { outcome, calls, settlementResult, latestStatus } = await refundEvent([
      noRefund,
      noRefund,
      noRefund,
      { kind: 'refunded', status: 'refunded' },
    ]);
    assert.equal(outcome, 'refunded');
    assertPauses(
      calls.filter((call) => call.kind === 'refund').map((call) => call.clocks),
      [5_000, 7_500, 11_250],
      'refund re-checks',
    );
    assert.equal(settlementResult, 'refunded', 'a new run under settlement:<ref> read the database');
    assert.equal(latestStatus, 'refunded');
  });

  it('gives up after recheckMs of definite "not refunded" answers, but not while the provider is unreachable', async function () {
    this.timeout(120_000);
    const recheckMs = 10 * MINUTE;
    const { outcome, calls } = await refundEvent([(elapsedMs) => (elapsedMs < 20 * MINUTE ? unavailable() : noRefund)], { recheckMs });
    assert.equal(outcome, 'not_refunded');
    const times = calls.filter((call) => call.kind === 'refund').map((call) => call.at);
    assert.ok(times.at(-1)! - times[0]! >= 20 * MINUTE, 'the outage did not count down the re-check');
    assert.ok(maxCallsPerMinute(times) <= 20);

    const agreed = await refundEvent([noRefund], { recheckMs });
    assert.equal(agreed.outcome, 'not_refunded');
    const checks = agreed.calls.filter((call) => call.kind === 'refund').map((call) => call.clocks);
    assertPauseWithin(checks[0]!, checks.at(-1)!, { atLeastMs: recheckMs - MINUTE, atMostMs: recheckMs + MINUTE }, 're-checked');
  });

  it('the refund of a failed attempt ends there: nothing is started on the settlement id', async () => {
    const { outcome, settlementResult } = await refundEvent([{ kind: 'attempt_refunded', status: 'success' }]);
    assert.equal(outcome, 'attempt_refunded');
    assert.equal(settlementResult, null);
  });

  it('a settlement workflow still watching is woken instead, and ends refunded at once', async () => {
    const { outcome, settlementResult, latestStatus, calls } = await refundEvent([noRefund, { kind: 'refunded', status: 'refunded' }], {
      settlementRunning: true,
    });
    assert.equal(outcome, 'refunded');
    assert.equal(settlementResult, 'refunded');
    assert.equal(latestStatus, 'refunded');
    const refundChecks = calls.filter((call) => call.kind === 'refund').map((call) => call.clocks);
    assert.ok(pauseBetween(refundChecks[0]!, refundChecks.at(-1)!).skippedMs < HOUR, 'the watch was woken, not left to its next poll');
  });
});
