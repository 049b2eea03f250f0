import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ConfirmationOutcome, PaymentConfirmationInput, ProviderTxnLookup } from '../../src/temporal/payloads';
import { paymentConfirmationWorkflow } from '../../workflows/paymentConfirmation.workflow';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, testWorker, timeSkippingEnvironment } from '../helpers/temporal';

const MINUTE = 60_000;
const GROSS = '502500';

const success = (gross = GROSS): ProviderTxnLookup => ({ kind: 'found', status: 'SUCCESS', grossAmountKobo: gross, feeKobo: '2500', transactionId: 'txn-1' });
const notFound: ProviderTxnLookup = { kind: 'not_found' };

/**
 * The environment's clock also runs in real time while activities and workflow tasks execute (time is
 * skipped only while nothing is running), so on a loaded machine a lookup can land a second or so late:
 * each lookup must be within this of its schedule, which still tells 2 s back-offs from 3 s ones.
 */
const CLOCK_SLACK_SECONDS = 1.5;

function assertSchedule(elapsedSeconds: number[], expected: number[]): void {
  assert.equal(elapsedSeconds.length, expected.length, `lookups at ${elapsedSeconds.join(', ')} s`);
  expected.forEach((at, index) =>
    assert.ok(Math.abs(elapsedSeconds[index]! - at) <= CLOCK_SLACK_SECONDS, `lookup ${index + 1} at ${elapsedSeconds[index]!.toFixed(1)} s, expected ${at} s`),
  );
}

describe('paymentConfirmationWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await timeSkippingEnvironment();
  });
  after(() => env?.teardown());

  /** `answers` are the provider's successive answers; the last one repeats. */
  async function confirm(answers: ProviderTxnLookup[], overrides: Partial<PaymentConfirmationInput> = {}) {
    const lookupTimes: number[] = [];
    const decisions: Array<{ decision: 'confirm' | 'reverse'; reason?: string }> = [];
    const activities = {
      async lookupProviderTransaction(): Promise<ProviderTxnLookup> {
        // The environment's clock: the (skipped) time the workflow sees.
        lookupTimes.push(await env.currentTimeMs());
        return answers[Math.min(lookupTimes.length - 1, answers.length - 1)]!;
      },
      async confirmPaymentCredit(): Promise<ConfirmationOutcome> {
        decisions.push({ decision: 'confirm' });
        return 'confirmed';
      },
      async reversePaymentCredit(_entryId: string, reason: string): Promise<ConfirmationOutcome> {
        decisions.push({ decision: 'reverse', reason });
        return 'reversed';
      },
    };
    const taskQueue = `confirmation-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    const outcome = await worker.runUntil(
      env.client.workflow.execute(paymentConfirmationWorkflow, {
        taskQueue,
        workflowId: `payment-confirmation:${randomUUID()}`,
        args: [{ entryId: randomUUID(), providerTxnRef: 'txn-1', grossAmountKobo: GROSS, windowMs: 30 * MINUTE, pollIntervalMs: 2_000, ...overrides }],
      }),
    );
    const elapsedSeconds = lookupTimes.map((time) => (time - lookupTimes[0]!) / 1000);
    return { outcome, decisions, elapsedSeconds };
  }

  it('confirms at the first lookup when the provider shows SUCCESS for the same gross amount', async () => {
    const { outcome, decisions, elapsedSeconds } = await confirm([success()]);
    assert.equal(outcome, 'confirmed');
    assert.deepEqual(decisions, [{ decision: 'confirm' }]);
    assert.equal(elapsedSeconds.length, 1);
  });

  it('confirms after the provider first says "not found", backing off between lookups', async () => {
    const { outcome, elapsedSeconds } = await confirm([notFound, notFound, notFound, success()]);
    assert.equal(outcome, 'confirmed');
    assertSchedule(elapsedSeconds, [0, 2, 6, 14]);
  });

  it('reverses when the provider still does not know the payment at the end of the window', async () => {
    const { outcome, decisions, elapsedSeconds } = await confirm([notFound]);
    assert.equal(outcome, 'reversed');
    assert.equal(decisions.length, 1);
    assert.match(decisions[0]!.reason!, /within the confirmation window/);
    assertSchedule(elapsedSeconds.slice(-1), [30 * 60]);
  });

  it('reverses on an amount mismatch', async () => {
    const { outcome, decisions } = await confirm([success('500000')]);
    assert.equal(outcome, 'reversed');
    assert.match(decisions[0]!.reason!, /differs/);
  });

  it('reverses when the provider reports the payment failed or refunded', async () => {
    for (const status of ['PAYMENT_FAILED', 'REFUND'] as const) {
      const { outcome } = await confirm([{ kind: 'found', status, grossAmountKobo: GROSS, feeKobo: null, transactionId: 'txn-1' }]);
      assert.equal(outcome, 'reversed');
    }
  });

  it('never reverses for lack of an answer: an unreachable provider past the window is asked again', async () => {
    const unavailable: ProviderTxnLookup = { kind: 'unavailable', reason: 'provider down' };
    const answers = [...Array.from({ length: 14 }, () => unavailable), success()];
    const { outcome, decisions, elapsedSeconds } = await confirm(answers);
    assert.equal(outcome, 'confirmed');
    assert.deepEqual(decisions, [{ decision: 'confirm' }]);
    assert.ok(elapsedSeconds.at(-1)! > 30 * 60);
  });
});
