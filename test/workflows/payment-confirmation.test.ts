import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { History } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createWorkflowStarter } from '../../src/outbox/workflow-starter';
import { outboxEntry, type OutboxRepo } from '../../src/outbox/outbox.repo';
import { createLogger } from '../../src/logger';
import { eventually } from '../helpers/http';
import { MAX_LOOKUP_INTERVAL_MS } from '../../src/contracts/confirmation-rules';
import { CONFIRMATION_HISTORY_LIMIT, confirmationStatusQuery, paymentConfirmationWorkflow, type ConfirmationState } from '../../workflows/paymentConfirmation.workflow';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, testWorker, timeSkippingEnvironment } from '../helpers/temporal';
import { type CreditResolution, type PaymentConfirmationInput, paymentConfirmationWorkflowId } from '../../src/contracts/payment-confirmation.contract';
import type { ProviderTxnLookup } from '../../src/provider/provider-answers';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const WINDOW = 30 * MINUTE;
const GROSS = '502500';

const found = (status: 'SUCCESS' | 'PAYMENT_FAILED' | 'PROCESSING' | 'REFUND'): ProviderTxnLookup => ({
  kind: 'found',
  status,
  grossAmountKobo: GROSS,
  feeKobo: '2500',
  transactionId: 'txn-1',
});
const notFound: ProviderTxnLookup = { kind: 'not_found' };
const unavailable: ProviderTxnLookup = { kind: 'unavailable', reason: 'provider down' };

const settled = (outcome: 'confirmed' | 'reversed', reason: string = outcome): CreditResolution => ({ kind: 'settled', outcome, reason });

/** The provider's answer as a function of the time since the workflow started (ms) and the lookup's index. */
type Provider = (elapsedMs: number, index: number) => ProviderTxnLookup;

/** Successive answers, the last one repeating. */
const answers =
  (...list: ProviderTxnLookup[]): Provider =>
  (_elapsed, index) =>
    list[Math.min(index, list.length - 1)]!;

interface Decision {
  decision: 'confirm' | 'reverse';
  atMs: number;
  reason?: string;
}

describe('paymentConfirmationWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await timeSkippingEnvironment();
  });
  after(() => env?.teardown());

  /**
   * A confirmation against a scripted provider. `onConfirm`/`onReverse` model what the money-moving
   * activities find when they check for themselves (by default they agree with the workflow).
   */
  function harness(provider: Provider, options: { onConfirm?: (index: number) => CreditResolution; onReverse?: (index: number) => CreditResolution } = {}) {
    let startedAt: number | null = null;
    const lookupTimes: number[] = [];
    const decisions: Decision[] = [];
    const elapsed = async (): Promise<number> => (await env.currentTimeMs()) - (startedAt ?? 0);
    const activities = {
      async lookupProviderTransaction(): Promise<ProviderTxnLookup> {
        startedAt ??= await env.currentTimeMs();
        const at = await elapsed();
        lookupTimes.push(at);
        return provider(at, lookupTimes.length - 1);
      },
      async confirmPaymentCredit(): Promise<CreditResolution> {
        decisions.push({ decision: 'confirm', atMs: await elapsed() });
        return options.onConfirm?.(decisions.length - 1) ?? settled('confirmed');
      },
      async reversePaymentCredit(_entryId: string, reason: string): Promise<CreditResolution> {
        decisions.push({ decision: 'reverse', atMs: await elapsed(), reason });
        return options.onReverse?.(decisions.length - 1) ?? settled('reversed', reason);
      },
    };
    return { activities, lookupTimes, decisions, startedAt: () => startedAt!, seconds: () => lookupTimes.map((time) => Math.round(time / SECOND)) };
  }

  /**
   * Without `minNotFoundLookups`, as every per-payment run in production was started (new credits are
   * confirmed in batches): such runs keep the rule they started with, two "not found" answers.
   */
  function input(overrides: Partial<PaymentConfirmationInput> = {}): PaymentConfirmationInput {
    return { entryId: randomUUID(), providerTxnRef: 'txn-1', grossAmountKobo: GROSS, windowMs: WINDOW, pollIntervalMs: 2 * SECOND, ...overrides };
  }

  async function confirm(provider: Provider, overrides: Partial<PaymentConfirmationInput> = {}, options: Parameters<typeof harness>[1] = {}) {
    const run = harness(provider, options);
    const taskQueue = `confirmation-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, run.activities);
    const args = input({ postedAtMs: await env.currentTimeMs(), ...overrides });
    const outcome = await worker.runUntil(env.client.workflow.execute(paymentConfirmationWorkflow, { taskQueue, workflowId: paymentConfirmationWorkflowId(args.entryId), args: [args] }));
    return { outcome, ...run };
  }

  it('confirms at the first lookup when the provider shows SUCCESS', async () => {
    const { outcome, decisions, lookupTimes } = await confirm(answers(found('SUCCESS')));
    assert.equal(outcome, 'confirmed');
    assert.deepEqual(
      decisions.map((decision) => decision.decision),
      ['confirm'],
    );
    assert.equal(lookupTimes.length, 1);
  });

  it('backs off between lookups (2 s, doubling) while the provider does not know the payment yet', async () => {
    const { outcome, seconds } = await confirm(answers(notFound, notFound, notFound, notFound, found('SUCCESS')));
    assert.equal(outcome, 'confirmed');
    assert.deepEqual(seconds(), [0, 2, 6, 14, 30]);
  });

  it('lookups back off to a cap of 5 minutes', async () => {
    const { lookupTimes } = await confirm((elapsedMs) => (elapsedMs < 2 * HOUR ? found('PROCESSING') : found('SUCCESS')));
    const gaps = lookupTimes.slice(1).map((at, index) => Math.round((at - lookupTimes[index]!) / SECOND));
    assert.equal(Math.max(...gaps), MAX_LOOKUP_INTERVAL_MS / SECOND);
    assert.deepEqual(gaps.slice(0, 8), [2, 4, 8, 16, 32, 64, 128, 256]);
  });

  it('reverses a payment the provider still does not know when the window ends', async () => {
    const { outcome, decisions, seconds } = await confirm(answers(notFound));
    assert.equal(outcome, 'reversed');
    assert.equal(decisions.length, 1);
    assert.match(decisions[0]!.reason!, /within the confirmation window/);
    assert.equal(seconds().at(-1), WINDOW / SECOND);
  });

  it('counts the window from posting time: a confirmation started 20 minutes late reverses 10 minutes later', async () => {
    const now = await env.currentTimeMs();
    const { outcome, decisions, seconds } = await confirm(answers(notFound), { postedAtMs: now - 20 * MINUTE });
    assert.equal(outcome, 'reversed');
    assert.equal(decisions[0]!.decision, 'reverse');
    // The clock moves on a little between posting and the start: compare to a couple of seconds.
    assert.ok(Math.abs(seconds().at(-1)! - 10 * 60) <= 2, `reversed at ${seconds().at(-1)} s`);
  });

  it('without a minimum in its input, started after its window is over, it still asks twice before reversing', async () => {
    const now = await env.currentTimeMs();
    const { outcome, seconds } = await confirm(answers(notFound), { postedAtMs: now - 2 * HOUR });
    assert.equal(outcome, 'reversed');
    assert.deepEqual(seconds(), [0, 2]);
  });

  /** CONFIRMATION_MIN_NOT_FOUND_LOOKUPS's default, as a confirmation started now carries it. */
  const minimum = { minNotFoundLookups: 3 };
  /** A third of the window, and a poll interval (2 s) more: when the next answer can count, with a margin. */
  const STEP_SECONDS = WINDOW / 3 / SECOND + 2;

  it('with a minimum of 3: a credit whose window closed with fewer lookups than the minimum is looked up again, spaced, not reversed', async () => {
    const now = await env.currentTimeMs();
    const { outcome, decisions, seconds } = await confirm(answers(notFound, notFound, found('SUCCESS')), { postedAtMs: now - 2 * HOUR, ...minimum });
    assert.equal(outcome, 'confirmed');
    assert.deepEqual(
      decisions.map((decision) => decision.decision),
      ['confirm'],
    );
    assert.deepEqual(seconds(), [0, STEP_SECONDS, 2 * STEP_SECONDS], 'it keeps looking for real time, a third of the window apart');
  });

  it('with a minimum of 3: a payment the provider never knows is reversed after answers spread over the window, the last after it', async () => {
    const { outcome, decisions, seconds } = await confirm(answers(notFound), minimum);
    assert.equal(outcome, 'reversed');
    assert.match(decisions[0]!.reason!, /within the confirmation window/);
    const last = seconds().at(-1)!;
    assert.ok(last >= WINDOW / SECOND && last <= WINDOW / SECOND + STEP_SECONDS, `reversed at ${last} s`);
  });

  it('with a minimum of 3: an outage past the window, then "not found": answers spaced a third of the window apart, the third reverses', async () => {
    const { outcome, decisions, lookupTimes } = await confirm((elapsedMs) => (elapsedMs < 2 * HOUR ? unavailable : notFound), minimum);
    assert.equal(outcome, 'reversed');
    const firstNotFound = lookupTimes.find((time) => time >= 2 * HOUR)!;
    assert.deepEqual(
      lookupTimes.filter((time) => time >= 2 * HOUR).map((time) => Math.round((time - firstNotFound) / SECOND)),
      [0, STEP_SECONDS, 2 * STEP_SECONDS],
    );
    assert.equal(Math.round((decisions[0]!.atMs - firstNotFound) / SECOND), 2 * STEP_SECONDS);
  });

  it('a payment still PROCESSING when the window ends keeps waiting, then confirms (never reversed for time)', async () => {
    const { outcome, decisions, seconds } = await confirm((elapsedMs) => (elapsedMs < 3 * HOUR ? found('PROCESSING') : found('SUCCESS')));
    assert.equal(outcome, 'confirmed');
    assert.deepEqual(
      decisions.map((decision) => decision.decision),
      ['confirm'],
    );
    assert.ok(seconds().at(-1)! >= 3 * 3600, `last lookup at ${seconds().at(-1)} s`);
  });

  it('a transaction the provider once showed is never reversed by a later "not found"', async () => {
    // Seen PROCESSING once, then "not found" (lookup lag, a flaky index) until long after the window.
    const { outcome, decisions } = await confirm((elapsedMs, index) => (index === 0 ? found('PROCESSING') : elapsedMs < 2 * HOUR ? notFound : found('SUCCESS')));
    assert.equal(outcome, 'confirmed');
    assert.deepEqual(
      decisions.map((decision) => decision.decision),
      ['confirm'],
    );
  });

  it('with lookup lag shorter than the window the credit is confirmed, not reversed', async () => {
    const { outcome, decisions } = await confirm((elapsedMs) => (elapsedMs < 20 * MINUTE ? notFound : found('SUCCESS')));
    assert.equal(outcome, 'confirmed');
    assert.equal(decisions[0]!.decision, 'confirm');
    assert.equal(decisions[0]!.atMs >= 20 * MINUTE, true);
  });

  it('never reverses for lack of an answer: an outage past the window, then SUCCESS, confirms', async () => {
    const { outcome, decisions, seconds } = await confirm((elapsedMs) => (elapsedMs < 2 * HOUR ? unavailable : found('SUCCESS')));
    assert.equal(outcome, 'confirmed');
    assert.deepEqual(
      decisions.map((decision) => decision.decision),
      ['confirm'],
    );
    assert.ok(seconds().at(-1)! >= 2 * 3600);
  });

  it('without a minimum in its input, an outage past the window, then "not found": one answer is not enough, the second reverses', async () => {
    const { outcome, decisions, lookupTimes } = await confirm((elapsedMs) => (elapsedMs < 2 * HOUR ? unavailable : notFound));
    assert.equal(outcome, 'reversed');
    const firstNotFound = lookupTimes.find((time) => time >= 2 * HOUR)!;
    assert.equal(lookupTimes.filter((time) => time >= 2 * HOUR).length, 2);
    assert.equal(Math.round((decisions[0]!.atMs - firstNotFound) / SECOND), 2);
  });

  it('reverses when the provider reports the payment failed or refunded', async () => {
    for (const status of ['PAYMENT_FAILED', 'REFUND'] as const) {
      const { outcome, decisions } = await confirm(answers(notFound, found(status)));
      assert.equal(outcome, 'reversed', status);
      assert.equal(decisions[0]!.reason, `provider reports ${status}`);
    }
  });

  it('ends reversed when the confirm activity finds the provider transaction is not this credit', async () => {
    const { outcome, decisions } = await confirm(answers(found('SUCCESS')), {}, { onConfirm: () => settled('reversed', 'provider amount 1 kobo differs from 502500 kobo') });
    assert.equal(outcome, 'reversed');
    assert.deepEqual(
      decisions.map((decision) => decision.decision),
      ['confirm'],
    );
  });

  it('keeps waiting when the confirm activity finds the provider no longer shows SUCCESS, then confirms', async () => {
    const { outcome, decisions } = await confirm(
      answers(found('SUCCESS')),
      {},
      {
        onConfirm: (index) => (index === 0 ? { kind: 'kept', lookup: found('PROCESSING'), reason: 'provider shows it PROCESSING' } : settled('confirmed')),
      },
    );
    assert.equal(outcome, 'confirmed');
    assert.deepEqual(
      decisions.map((decision) => [decision.decision, Math.round(decision.atMs / SECOND)]),
      [
        ['confirm', 0],
        ['confirm', 2],
      ],
    );
  });

  it('a refused reversal waits (backing off) instead of asking again at once', async () => {
    const { outcome, decisions } = await confirm(
      answers(found('PAYMENT_FAILED')),
      {},
      {
        onReverse: (index) => (index < 2 ? { kind: 'kept', lookup: found('PROCESSING'), reason: 'reversal refused' } : settled('reversed')),
      },
    );
    assert.equal(outcome, 'reversed');
    assert.deepEqual(
      decisions.map((decision) => Math.round(decision.atMs / SECOND)),
      [0, 2, 6],
    );
  });

  it('answers the status query while it waits: lookups, first sighting, deadline from posting time', async () => {
    const run = harness((elapsedMs) => (elapsedMs < 4 * HOUR ? found('PROCESSING') : found('SUCCESS')));
    const taskQueue = `confirmation-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, run.activities);
    const postedAtMs = (await env.currentTimeMs()) - 5 * MINUTE;
    const args = input({ postedAtMs });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(paymentConfirmationWorkflow, { taskQueue, workflowId: paymentConfirmationWorkflowId(args.entryId), args: [args] });
      const waiting = await eventuallyQuery(handle, (state) => state.lookups >= 1 && state.reason !== null);
      assert.equal(waiting.deadlineMs, postedAtMs + WINDOW);
      assert.equal(waiting.reason, 'provider shows it PROCESSING');
      assert.equal(waiting.outcome, null);
      assert.notEqual(waiting.firstSeenAtMs, null);
      assert.deepEqual(waiting.lastLookup, found('PROCESSING'));
      assert.equal(await handle.result(), 'confirmed');
      const done = await handle.query(confirmationStatusQuery);
      assert.equal(done.outcome, 'confirmed');
      assert.equal(done.lookups, run.lookupTimes.length);
    });
  });

  it('continues as new before its history grows: a day of outage keeps every run under the limit, carrying its state', async function () {
    this.timeout(120_000);
    // Seen PROCESSING once, then a day of outage, then "not found" for an hour, then SUCCESS. Without the
    // first sighting carried over, a later run would reverse on "not found" past the window.
    const provider: Provider = (elapsedMs, index) => (index === 0 ? found('PROCESSING') : elapsedMs < 24 * HOUR ? unavailable : elapsedMs < 25 * HOUR ? notFound : found('SUCCESS'));
    const run = harness(provider);
    const taskQueue = `confirmation-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, run.activities);
    // No postedAtMs: a run started before it existed counts from its start, and carries that on.
    const args = input({ postedAtMs: undefined });
    const { outcome, runs, final } = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(paymentConfirmationWorkflow, { taskQueue, workflowId: paymentConfirmationWorkflowId(args.entryId), args: [args] });
      const result = await handle.result();
      return { outcome: result, runs: await historyLengthsOfRuns(handle), final: await handle.query(confirmationStatusQuery) };
    });
    assert.equal(outcome, 'confirmed');
    assert.deepEqual(
      run.decisions.map((decision) => decision.decision),
      ['confirm'],
    );
    assert.ok(runs.length >= 2, `expected continue-as-new, got ${runs.length} run(s)`);
    for (const length of runs) assert.ok(length <= CONFIRMATION_HISTORY_LIMIT + 20, `a run has ${length} events`);
    assert.equal(final.runs, runs.length);
    assert.equal(final.lookups, run.lookupTimes.length, 'the lookup count is carried across runs');
    // The window of a legacy input counts from the first run's start, in every later run too.
    assert.ok(Math.abs(final.deadlineMs - run.startedAt() - WINDOW) < SECOND, `deadline ${final.deadlineMs - run.startedAt()} ms after the first lookup`);
  });

  it('a continued run keeps the original deadline: after an outage, "not found" reverses at once (two answers)', async function () {
    this.timeout(120_000);
    // Sixteen hours of 5-minute lookups: past the history limit, so the "not found" answers reach a later run.
    const run = harness((elapsedMs) => (elapsedMs < 16 * HOUR ? unavailable : notFound));
    const { lookupTimes, decisions } = run;
    const taskQueue = `confirmation-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, run.activities);
    const args = input({ postedAtMs: undefined });
    const { outcome, final } = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(paymentConfirmationWorkflow, { taskQueue, workflowId: paymentConfirmationWorkflowId(args.entryId), args: [args] });
      return { outcome: await handle.result(), final: await handle.query(confirmationStatusQuery) };
    });
    assert.equal(outcome, 'reversed');
    assert.ok(final.runs >= 2, `decided in run ${final.runs}`);
    assert.equal(lookupTimes.filter((time) => time >= 16 * HOUR).length, 2);
    assert.ok(decisions[0]!.atMs < 16 * HOUR + 10 * MINUTE);
  });

  it('a terminated or failed confirmation can be started again under its id; a running or completed one cannot', async () => {
    /** A worker with these activities and the real starter (reuse policy included) on a task queue of their own. */
    async function withStarter(activities: object, body: (starter: ReturnType<typeof createWorkflowStarter>) => Promise<void>): Promise<void> {
      const taskQueue = `confirmation-${randomUUID()}`;
      const worker = await testWorker(env.nativeConnection, taskQueue, activities);
      const outbox = { markStarted: async () => undefined } as unknown as OutboxRepo;
      const starter = createWorkflowStarter({ client: env.client, outbox, logger: createLogger('silent', 'test'), options: { taskQueue, startsPerSecond: 100, searchAttributes: false } });
      await worker.runUntil(() => body(starter));
      await starter.close();
    }
    const job = () => {
      const args = input();
      return outboxEntry('paymentConfirmationWorkflow', paymentConfirmationWorkflowId(args.entryId), args);
    };

    await withStarter(harness(answers(found('PROCESSING'))).activities, async (starter) => {
      const waiting = job();
      assert.equal(await starter.start(waiting), 'started');
      assert.equal(await starter.start(waiting), 'exists', 'a running confirmation is not started twice');
      const handle = env.client.workflow.getHandle(waiting.workflowId);
      await eventuallyQuery(handle, (state) => state.lookups >= 1);
      await handle.terminate('operator');
      assert.equal(await starter.start(waiting), 'started', 'a terminated confirmation starts again');
      await handle.terminate('test over');
    });

    const broken = { ...harness(answers(notFound)).activities, lookupProviderTransaction: async () => Promise.reject(ApplicationFailure.nonRetryable('lookup broken for good')) };
    await withStarter(broken, async (starter) => {
      const failing = job();
      assert.equal(await starter.start(failing), 'started');
      await assert.rejects(env.client.workflow.getHandle(failing.workflowId).result(), /Workflow execution failed/);
      assert.equal(await starter.start(failing), 'started', 'a failed confirmation starts again');
      await env.client.workflow.getHandle(failing.workflowId).terminate('test over');
    });

    await withStarter(harness(answers(found('SUCCESS'))).activities, async (starter) => {
      const done = job();
      assert.equal(await starter.start(done), 'started');
      assert.equal(await env.client.workflow.getHandle(done.workflowId).result(), 'confirmed');
      assert.equal(await starter.start(done), 'exists', 'a completed confirmation stays done');
    });
  });

  /** History lengths of every run of the chain that started with this handle's first run. */
  async function historyLengthsOfRuns(handle: WorkflowHandleWithFirstExecutionRunId): Promise<number[]> {
    const lengths: number[] = [];
    let runId: string | undefined = handle.firstExecutionRunId;
    while (runId) {
      const history: History = await env.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
      const events = history.events ?? [];
      lengths.push(events.length);
      runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    return lengths;
  }

  async function eventuallyQuery(handle: WorkflowHandle, done: (state: ConfirmationState) => boolean): Promise<ConfirmationState> {
    return eventually(
      async () => {
        const state = await handle.query(confirmationStatusQuery);
        return done(state) ? state : null;
      },
      { intervalMs: 50, what: 'the workflow to reach the expected state' },
    );
  }
});
