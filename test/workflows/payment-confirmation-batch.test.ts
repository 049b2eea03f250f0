import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { decidePayment, notFoundRule, rememberLookup, type PaymentMemory } from '../../src/contracts/confirmation-rules';
import { HISTORY_EVENT_LIMIT } from '../../workflows/continue-as-new';
import {
  batchConfirmationStatusQuery,
  batchPaymentQuery,
  paymentConfirmationBatchWorkflow,
  type BatchConfirmationSummary,
} from '../../workflows/payment-confirmation-batch.workflow';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, sharedTimeSkippingEnvironment, testWorker } from '../helpers/temporal';
import { assertPauses, assertPauseWithin, type ClockReading, readClocks } from '../helpers/workflow-clock';
import {
  type BatchConfirmationInput,
  type BatchPaymentResult,
  type BatchRoundResult,
  paymentConfirmationBatchWorkflowId,
} from '../../src/contracts/payment-confirmation.contract';
import type { ProviderTxnLookup } from '../../src/provider/provider-answers';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const WINDOW = 30 * MINUTE;
/** The default CONFIRMATION_MIN_NOT_FOUND_LOOKUPS: counted "not found" answers at least 10 minutes apart. */
const MIN_NOT_FOUND_LOOKUPS = 3;
const rule = notFoundRule(WINDOW, MIN_NOT_FOUND_LOOKUPS);
const GROSS = '502500';

const found = (status: 'SUCCESS' | 'PROCESSING', transactionId: string): ProviderTxnLookup => ({
  kind: 'found',
  status,
  grossAmountKobo: GROSS,
  feeKobo: '2500',
  transactionId,
});
const notFound: ProviderTxnLookup = { kind: 'not_found' };

/** What the provider says about one payment, by the time since the batch started and the lookup's index. */
type Provider = (elapsedMs: number, index: number) => ProviderTxnLookup;

interface Payment {
  entryId: string;
  ref: string;
  postedAgoMs: number;
  provider: Provider;
}

/**
 * A batch against scripted provider answers. The scripted round applies the real decision rules
 * (decidePayment) with the memory and the window the database would hold, so the workflow's timing is
 * what is tested; `throttle` makes a round answer 429 with this Retry-After.
 */
describe('paymentConfirmationBatchWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await sharedTimeSkippingEnvironment();
  });

  function payment(provider: Provider, postedAgoMs = 0): Payment {
    const ref = `API-VACT_TRA-TEST-${randomUUID()}`;
    return { entryId: randomUUID(), ref, postedAgoMs, provider };
  }

  async function runBatch(payments: Payment[], options: { throttle?: (round: number) => number | null } = {}) {
    let startedAt: number | null = null;
    const lookups = new Map<string, number[]>();
    /** The clocks at each payment's lookups, for the pauses between them. */
    const lookupClocks = new Map<string, ClockReading[]>();
    const decided = new Map<string, { outcome: string; atMs: number }>();
    const memory = new Map<string, PaymentMemory>();
    /** When each payment's "not found" answers counted toward a reversal, by the activity's own clock. */
    const counted = new Map<string, number[]>();
    const countedClocks = new Map<string, ClockReading[]>();
    let rounds = 0;
    let postedAt = new Map<string, number>();
    const activities = {
      async confirmPaymentBatch(_batchId: string, entryIds: string[]): Promise<BatchRoundResult> {
        const clocks = await readClocks(env);
        const now = clocks.workflowMs;
        startedAt ??= now;
        const elapsed = now - startedAt;
        const round = rounds++;
        const throttledForMs = options.throttle?.(round) ?? null;
        const results = entryIds.map((entryId, index): BatchPaymentResult => {
          const item = payments.find((candidate) => candidate.entryId === entryId)!;
          if (throttledForMs !== null && index > 0) return { entryId, kind: 'skipped' };
          const times = lookups.get(entryId) ?? [];
          lookups.set(entryId, [...times, elapsed]);
          lookupClocks.set(entryId, [...(lookupClocks.get(entryId) ?? []), clocks]);
          const lookup: ProviderTxnLookup =
            throttledForMs !== null
              ? { kind: 'unavailable', reason: 'HTTP 429', retryAfterMs: throttledForMs }
              : item.provider(elapsed, times.length);
          const remembered = rememberLookup(
            memory.get(entryId) ?? { seen: false, notFoundAnswers: 0, lastNotFoundCountedAtMs: null },
            lookup,
            now,
            rule,
          );
          if (remembered.notFoundAnswers > (memory.get(entryId)?.notFoundAnswers ?? 0)) {
            counted.set(entryId, [...(counted.get(entryId) ?? []), elapsed]);
            countedClocks.set(entryId, [...(countedClocks.get(entryId) ?? []), clocks]);
          }
          memory.set(entryId, remembered);
          const clock = { nowMs: now, windowEndsAtMs: postedAt.get(entryId)! + WINDOW };
          const decision = decidePayment(
            { providerTxnRef: item.ref, aliasAccountRef: 'va_test', grossAmountKobo: GROSS, currency: 'NGN' },
            remembered,
            lookup,
            clock,
            rule,
          );
          if (decision.kind === 'keep') return { entryId, kind: 'kept', reason: decision.reason, lookup };
          const outcome = decision.kind === 'confirm' ? 'confirmed' : 'reversed';
          decided.set(entryId, { outcome, atMs: elapsed });
          return { entryId, kind: 'settled', outcome, reason: decision.kind === 'reverse' ? decision.reason : 'matches', lookup };
        });
        return { results, throttledForMs };
      },
    };
    const taskQueue = `batch-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    const now = await env.currentTimeMs();
    postedAt = new Map(payments.map((item) => [item.entryId, now - item.postedAgoMs]));
    const input: BatchConfirmationInput = {
      batchId: randomUUID(),
      payments: payments.map((item) => ({
        entryId: item.entryId,
        providerTxnRef: item.ref,
        accountRef: 'va_test',
        postedAtMs: now - item.postedAgoMs,
      })),
      windowMs: WINDOW,
      pollIntervalMs: 2 * SECOND,
      minNotFoundLookups: MIN_NOT_FOUND_LOOKUPS,
    };
    return worker.runUntil(async () => {
      const handle = await env.client.workflow.start(paymentConfirmationBatchWorkflow, {
        taskQueue,
        workflowId: paymentConfirmationBatchWorkflowId(input.batchId),
        args: [input],
      });
      const summary: BatchConfirmationSummary = await handle.result();
      const runs = await runsOf(handle);
      const final = await handle.query(batchConfirmationStatusQuery);
      const byRef = await handle.query(batchPaymentQuery, payments.at(-1)!.ref);
      return {
        summary,
        runs,
        final,
        byRef,
        lookups,
        decided,
        seconds: (entryId: string) => (lookups.get(entryId) ?? []).map((ms) => Math.round(ms / SECOND)),
        countedSeconds: (entryId: string) => (counted.get(entryId) ?? []).map((ms) => Math.round(ms / SECOND)),
        lookupClocks: (entryId: string) => lookupClocks.get(entryId) ?? [],
        countedClocks: (entryId: string) => countedClocks.get(entryId) ?? [],
      };
    });
  }

  /**
   * A payment past its window is looked up for real time: its "not found" answers count a third of the window apart,
   * and the lookups come when an answer can count again, not a few in a row. The rounds run in real time (the test
   * clock skips only timers) and the workflow notes an answer by its own clock, the activity counts it by its own: on a
   * loaded machine the two drift by more than the poll interval's margin, a lookup lands a moment early and does not
   * count, and the batch asks again on its back-off. So the counted answers are held to the rule, and the lookups to a
   * bound: never more than the counted ones and one back-off run (2 s doubling up to 5 minutes) per gap.
   */
  function assertLookedUpForRealTime(lookupSeconds: number[], countedSeconds: number[], counted: ClockReading[]): void {
    const spacing = WINDOW / MIN_NOT_FOUND_LOOKUPS;
    const shown = `lookups at ${JSON.stringify(lookupSeconds)} s, counted at ${JSON.stringify(countedSeconds)} s`;
    assert.equal(countedSeconds.length, MIN_NOT_FOUND_LOOKUPS, shown);
    assert.equal(countedSeconds[0], 0, shown);
    for (const [index, clocks] of counted.entries()) {
      if (index === 0) continue;
      assertPauseWithin(
        counted[index - 1]!,
        clocks,
        { atLeastMs: spacing, atMostMs: 2 * spacing },
        `counted answer ${index + 1}: ${shown}`,
      );
    }
    assert.ok(lookupSeconds.length <= 4 * MIN_NOT_FOUND_LOOKUPS, shown);
  }

  async function runsOf(handle: WorkflowHandleWithFirstExecutionRunId): Promise<Array<{ events: number; payments: number }>> {
    const runs: Array<{ events: number; payments: number }> = [];
    let runId: string | undefined = handle.firstExecutionRunId;
    while (runId) {
      const history: History = await env.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
      const events = history.events ?? [];
      const payload = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
      const started = JSON.parse(Buffer.from(payload as Uint8Array).toString('utf8')) as BatchConfirmationInput;
      runs.push({ events: events.length, payments: started.payments.length });
      runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    return runs;
  }

  it('confirms every payment the provider shows SUCCESS in one round', async () => {
    const payments = [0, 1, 2].map(() => payment((_elapsed) => found('SUCCESS', '')));
    for (const item of payments) item.provider = () => found('SUCCESS', item.ref);
    const { summary, lookups, runs } = await runBatch(payments);
    assert.deepEqual(summary, { confirmed: 3, reversed: 0, alreadySettled: 0, released: 0, runs: 1 });
    assert.ok([...lookups.values()].every((times) => times.length === 1));
    assert.equal(runs.length, 1);
  });

  it('a payment the provider keeps PROCESSING does not hold up the others; it waits however long, then confirms', async () => {
    const slow = payment(() => notFound);
    slow.provider = (elapsed) => found(elapsed < 2 * HOUR ? 'PROCESSING' : 'SUCCESS', slow.ref);
    const quick = [payment(() => notFound), payment(() => notFound)];
    for (const item of quick) item.provider = () => found('SUCCESS', item.ref);
    const { summary, decided, lookupClocks } = await runBatch([slow, ...quick]);
    assert.deepEqual(summary, { confirmed: 3, reversed: 0, alreadySettled: 0, released: 0, runs: 1 });
    for (const item of quick) assert.deepEqual(decided.get(item.entryId), { outcome: 'confirmed', atMs: 0 });
    assert.ok(decided.get(slow.entryId)!.atMs >= 2 * HOUR);
    // Its own back-off, 2 s doubling.
    assertPauses(
      lookupClocks(slow.entryId),
      [2, 4, 8, 16].map((seconds) => seconds * SECOND),
      "the PROCESSING payment's lookups",
    );
  });

  it("each payment's window counts from its own posting: one posted 40 minutes ago is reversed after three answers 10 minutes apart, one posted now only after its 30 minutes", async () => {
    const old = payment(() => notFound, 40 * MINUTE);
    const fresh = payment(() => notFound, 0);
    const { summary, decided, seconds, countedSeconds, lookupClocks, countedClocks } = await runBatch([old, fresh]);
    assert.equal(summary.reversed, 2);
    // Its window over at the start, it keeps looking for real time: a third of the window (and a poll interval) apart.
    assertLookedUpForRealTime(seconds(old.entryId), countedSeconds(old.entryId), countedClocks(old.entryId));
    const freshAt = decided.get(fresh.entryId)!.atMs;
    assert.ok(freshAt >= WINDOW && freshAt <= WINDOW + WINDOW / MIN_NOT_FOUND_LOOKUPS + 30 * SECOND, `reversed at ${freshAt / SECOND} s`);
    // Inside its window the back-off caps at 5 minutes; after it, the next lookup waits until an answer can
    // count again (a third of the window after the last counted one, plus a poll interval).
    const freshClocks = lookupClocks(fresh.entryId);
    for (const [index, second] of seconds(fresh.entryId).entries()) {
      if (index === 0) continue;
      const atMostMs = second <= WINDOW / SECOND ? 5 * MINUTE : WINDOW / MIN_NOT_FOUND_LOOKUPS;
      assertPauseWithin(freshClocks[index - 1]!, freshClocks[index]!, { atLeastMs: 0, atMostMs }, `the lookup at ${second} s`);
    }
  });

  it('a payment whose window closed before the batch first asked, "not found" twice then found, is confirmed, not reversed', async () => {
    const late = payment(() => notFound, 45 * MINUTE);
    late.provider = (_elapsed, index) => (index < 2 ? notFound : found('SUCCESS', late.ref));
    const { summary, seconds } = await runBatch([late]);
    assert.deepEqual(summary, { confirmed: 1, reversed: 0, alreadySettled: 0, released: 0, runs: 1 });
    // Two answers counted, then found: confirmed at its third lookup or, when one landed a moment early, a later one.
    const asked = seconds(late.entryId);
    assert.ok(asked.length >= 3 && asked.length <= 4 * MIN_NOT_FOUND_LOOKUPS, `lookups at ${JSON.stringify(asked)} s`);
    assert.ok(asked[1]! >= WINDOW / MIN_NOT_FOUND_LOOKUPS / SECOND, `lookups at ${JSON.stringify(asked)} s`);
  });

  it('a 429 backs off the whole batch: no payment is asked again before the Retry-After', async () => {
    const payments = [0, 1, 2].map(() => payment(() => notFound));
    for (const item of payments) item.provider = () => found('SUCCESS', item.ref);
    const { summary, lookups } = await runBatch(payments, { throttle: (round) => (round === 0 ? 90 * SECOND : null) });
    assert.equal(summary.confirmed, 3);
    // The first payment was asked at 0 (and throttled); the others were skipped; every next ask is after 90 s.
    const first = lookups.get(payments[0]!.entryId)!;
    assert.deepEqual(
      first.map((ms) => ms >= 90 * SECOND),
      [false, true],
    );
    for (const item of payments.slice(1))
      assert.ok(
        lookups.get(item.entryId)!.every((ms) => ms >= 90 * SECOND),
        'skipped payments wait with the batch',
      );
  });

  it('a provider that throttles every round still reaches each payment in turn: the ones a 429 left unasked lead the next round', async () => {
    const payments = Array.from({ length: 6 }, () => payment(() => notFound));
    for (const item of payments) item.provider = () => found('SUCCESS', item.ref);
    // Six rounds in a row answer their first lookup 429 (Retry-After 1 s) and skip the rest.
    const { summary, lookups } = await runBatch(payments, { throttle: (round) => (round < payments.length ? SECOND : null) });
    assert.equal(summary.confirmed, 6);
    const firstAsked = payments.map((item) => lookups.get(item.entryId)![0]!);
    assert.ok(
      firstAsked.every((ms) => ms < 6 * (2 * SECOND + SECOND)),
      `every payment was first asked within six throttled rounds, not after them (first asked at ${firstAsked.map((ms) => ms / SECOND).join(', ')} s)`,
    );
    assert.equal(new Set(firstAsked).size, payments.length, 'each throttled round asked a payment no earlier round had reached');
  });

  it('continues as new past the history bound, carrying only the unfinished payments and their progress', async function () {
    this.timeout(120_000);
    // Seen PROCESSING once, then "not found" for a day (lookup lag): never reversed, because it was seen.
    const lagging = payment(() => notFound);
    lagging.provider = (elapsed, index) =>
      index === 0 ? found('PROCESSING', lagging.ref) : elapsed < 24 * HOUR ? notFound : found('SUCCESS', lagging.ref);
    const done = [payment(() => notFound), payment(() => notFound)];
    for (const item of done) item.provider = () => found('SUCCESS', item.ref);
    const { summary, runs, final, byRef } = await runBatch([...done, lagging]);
    assert.equal(summary.confirmed, 3);
    assert.equal(summary.reversed, 0, 'the "seen" memory crossed continue-as-new');
    assert.ok(runs.length >= 2, `expected continue-as-new, got ${runs.length} run(s)`);
    assert.equal(runs[0]!.payments, 3);
    assert.ok(
      runs.slice(1).every((run) => run.payments === 1),
      'later runs carry only the unfinished payment',
    );
    for (const run of runs) assert.ok(run.events <= HISTORY_EVENT_LIMIT + 20, `a run has ${run.events} events`);
    assert.equal(final.runs, runs.length);
    assert.deepEqual(
      final.payments.map((item) => item.entryId),
      [lagging.entryId],
    );
    assert.equal(byRef?.outcome, 'confirmed');
    assert.ok(byRef!.lookups > 200, 'the lookup count is carried across runs');
  });
});
