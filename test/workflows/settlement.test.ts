import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { DestinationCheck, ProviderTxnLookup, SettlementInput, SettlementWorkflowStatus, SubmissionResult } from '../../src/temporal/payloads';
import { SETTLEMENT_STATUS } from '../../src/temporal/search-attributes';
import { payoutSignal, settlementWorkflow } from '../../workflows/settlement.workflow';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, testWorker, timeSkippingEnvironment } from '../helpers/temporal';

type ProviderStatus = 'SUCCESS' | 'PAYMENT_FAILED' | 'PROCESSING' | 'REFUND';

/**
 * A scripted provider behind mocked activities. `script[n]` drives attempt n+1: how its submission
 * answers, then the statuses its lookups return (the last repeats).
 */
interface AttemptScript {
  submit: SubmissionResult['kind'];
  statuses: Array<ProviderStatus | 'not_found'>;
}

function scriptedActivities(script: AttemptScript[]) {
  const log = {
    submissions: [] as Array<{ attemptNo: number; at: number }>,
    lookups: [] as Array<{ ref: string; at: number }>,
    failedAttempts: [] as number[],
    final: [] as string[],
  };
  const lookupsByRef = new Map<string, number>();
  const now = () => Context.current().info.currentAttemptScheduledTimestampMs;
  const activities = {
    async checkSettlementDestination(): Promise<DestinationCheck> {
      return { kind: 'ok' };
    },
    async submitSettlementAttempt(_id: string, attemptNo: number): Promise<SubmissionResult> {
      log.submissions.push({ attemptNo, at: now() });
      const kind = script[attemptNo - 1]!.submit;
      const sameAttemptBefore = log.submissions.filter((submission) => submission.attemptNo === attemptNo).length > 1;
      // A repeated submission of the same reference is accepted (the provider dedups it).
      if (sameAttemptBefore) return { kind: 'accepted', providerTransferId: `t-${attemptNo}` };
      if (kind === 'accepted') return { kind, providerTransferId: `t-${attemptNo}` };
      if (kind === 'settlement_closed') return { kind };
      return { kind, reason: `${kind} by script` } as SubmissionResult;
    },
    async lookupTransferStatus(ref: string): Promise<ProviderTxnLookup> {
      log.lookups.push({ ref, at: now() });
      const attemptNo = Number(ref.split('-').pop());
      const seen = lookupsByRef.get(ref) ?? 0;
      lookupsByRef.set(ref, seen + 1);
      const statuses = script[attemptNo - 1]!.statuses;
      const status = statuses[Math.min(seen, statuses.length - 1)]!;
      return status === 'not_found' ? { kind: 'not_found' } : { kind: 'found', status, grossAmountKobo: '10000', feeKobo: '1000', transactionId: `t-${attemptNo}` };
    },
    async markSettlementAttemptFailed(_id: string, attemptNo: number): Promise<void> {
      log.failedAttempts.push(attemptNo);
    },
    async completeSettlement(): Promise<SettlementWorkflowStatus> {
      log.final.push('complete');
      return 'success';
    },
    async failSettlement(): Promise<SettlementWorkflowStatus> {
      log.final.push('fail');
      return 'failed';
    },
    async refundSettlement(): Promise<SettlementWorkflowStatus> {
      log.final.push('refund');
      return 'refunded';
    },
  };
  return { activities, log };
}

const SECOND = 1_000;

describe('settlementWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await timeSkippingEnvironment();
  });
  after(() => env?.teardown());

  async function settle(script: AttemptScript[], overrides: Partial<SettlementInput> = {}, during?: (workflowId: string) => Promise<void>) {
    const { activities, log } = scriptedActivities(script);
    const taskQueue = `settlement-${randomUUID()}`;
    const merchantTxRef = `mtx_${randomUUID().slice(0, 8)}`;
    const workflowId = `settlement:${merchantTxRef}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    const status = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(settlementWorkflow, {
        taskQueue,
        workflowId,
        args: [
          {
            settlementId: randomUUID(),
            merchantTxRef,
            maxAttempts: 5,
            retryScheduleMs: [30 * SECOND, 60 * SECOND, 120 * SECOND, 300 * SECOND],
            pollIntervalMs: 5 * SECOND,
            refundWatchMs: 24 * 3_600 * SECOND,
            ...overrides,
          },
        ],
      });
      if (during) await during(workflowId);
      const result = await handle.result();
      const description = await handle.describe();
      return { result, searchStatus: description.typedSearchAttributes.get(SETTLEMENT_STATUS) };
    });
    return { ...status, log, merchantTxRef };
  }

  it('succeeds at the first attempt and watches for a refund that never comes', async () => {
    const { result, searchStatus, log } = await settle([{ submit: 'accepted', statuses: ['SUCCESS'] }]);
    assert.equal(result, 'success');
    assert.equal(searchStatus, 'success');
    assert.deepEqual(log.submissions.map((submission) => submission.attemptNo), [1]);
    assert.deepEqual(log.final, ['complete']);
    const watchMs = log.lookups.at(-1)!.at - log.lookups[0]!.at;
    assert.ok(watchMs >= 23 * 3_600 * SECOND, `refund watch lasted ${watchMs} ms`);
  });

  it('fails twice, then succeeds on attempt 3 with a new reference each time, waiting 30 s and 1 min between', async () => {
    const failing: AttemptScript = { submit: 'accepted', statuses: ['PAYMENT_FAILED'] };
    const { result, log } = await settle([failing, failing, { submit: 'accepted', statuses: ['PROCESSING', 'SUCCESS'] }], { refundWatchMs: 0 });
    assert.equal(result, 'success');
    assert.deepEqual(log.failedAttempts, [1, 2]);
    assert.deepEqual([...new Set(log.lookups.map((lookup) => lookup.ref.split('-').pop()))], ['1', '2', '3']);
    const [first, second, third] = log.submissions;
    // The clock also runs in real time while activities execute: a loaded machine adds a second or so.
    const waits = [(second!.at - first!.at) / SECOND, (third!.at - second!.at) / SECOND];
    assert.ok(Math.abs(waits[0]! - 30) <= 1.5 && Math.abs(waits[1]! - 60) <= 1.5, `waited ${waits.map((wait) => wait.toFixed(1)).join(' s and ')} s`);
  });

  it('five definite failures end in compensation: status failed', async () => {
    const failing: AttemptScript = { submit: 'rejected', statuses: ['PAYMENT_FAILED'] };
    const { result, searchStatus, log } = await settle(Array.from({ length: 5 }, () => failing));
    assert.equal(result, 'failed');
    assert.equal(searchStatus, 'failed');
    assert.deepEqual(log.submissions.map((submission) => submission.attemptNo), [1, 2, 3, 4, 5]);
    assert.deepEqual(log.failedAttempts, [1, 2, 3, 4, 5]);
    assert.deepEqual(log.final, ['fail']);
  });

  it('a refund after success reverses the debit: status refunded', async () => {
    const { result, log } = await settle([{ submit: 'accepted', statuses: ['SUCCESS', 'SUCCESS', 'SUCCESS', 'REFUND'] }]);
    assert.equal(result, 'refunded');
    assert.deepEqual(log.final, ['complete', 'refund']);
  });

  it('a refund reported before success is applied at once', async () => {
    const { result, log } = await settle([{ submit: 'accepted', statuses: ['PROCESSING', 'REFUND'] }]);
    assert.equal(result, 'refunded');
    assert.deepEqual(log.final, ['refund']);
  });

  it('an ambiguous submission that the provider shows as SUCCESS makes one submission only', async () => {
    const { result, log } = await settle([{ submit: 'ambiguous', statuses: ['SUCCESS'] }], { refundWatchMs: 0 });
    assert.equal(result, 'success');
    assert.equal(log.submissions.length, 1);
  });

  it('an ambiguous submission unknown to the provider is repeated under the same reference, never a new one', async () => {
    const { result, log } = await settle([{ submit: 'ambiguous', statuses: ['not_found', 'SUCCESS'] }], { refundWatchMs: 0 });
    assert.equal(result, 'success');
    assert.deepEqual(log.submissions.map((submission) => submission.attemptNo), [1, 1]);
    assert.ok(log.lookups.every((lookup) => lookup.ref.endsWith('-1')));
  });

  it('a payout webhook signal wakes the workflow before its next poll', async () => {
    const { result, log, merchantTxRef } = await settle(
      [{ submit: 'accepted', statuses: ['PROCESSING', 'SUCCESS'] }],
      { pollIntervalMs: 3_600 * SECOND, refundWatchMs: 0 },
      async (workflowId) => {
        await env.client.workflow.getHandle(workflowId).signal(payoutSignal, { type: 'payout_success', providerRef: `${workflowId.replace('settlement:', '')}-1` });
      },
    );
    assert.equal(result, 'success');
    assert.ok(merchantTxRef);
    const waited = log.lookups[1]!.at - log.lookups[0]!.at;
    assert.ok(waited < 3_600 * SECOND, `second lookup came after ${waited} ms`);
  });
});
