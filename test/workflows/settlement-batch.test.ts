import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ChunkResult, CompletionCheck, SettlementBatchInput } from '../../src/contracts/settlement-batch.contract';
import { settlementBatchWorkflow } from '../../workflows/settlement-batch.workflow';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, sharedTimeSkippingEnvironment, testWorker } from '../helpers/temporal';

describe('settlementBatchWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await sharedTimeSkippingEnvironment();
  });

  it('initiates in chunks of its chunk size, waits what a full cap or a Retry-After names, continues as new past the history limit, then follows the items to the end', async function () {
    this.timeout(120_000);
    const total = 1_200;
    let queued = total;
    let checks = 0;
    const calls: Array<{ limit: number; atMs: number; runId: string }> = [];
    const waits: Array<{ waitMs: number; atMs: number }> = [];
    const activities = {
      async initiateBatchItems(request: { batchId: string; limit: number }): Promise<ChunkResult> {
        const atMs = await env.currentTimeMs();
        calls.push({ limit: request.limit, atMs, runId: Context.current().info.workflowExecution!.runId });
        // Every other call finds the cap full (or a Retry-After): nothing judged, a wait named.
        if (calls.length % 2 === 0) {
          const waitMs = calls.length % 4 === 0 ? 3_000 : 500;
          waits.push({ waitMs, atMs });
          return { judged: 0, waitMs, stopped: false };
        }
        const judged = Math.min(request.limit, queued);
        queued -= judged;
        return { judged, waitMs: 0, stopped: queued === 0 };
      },
      async completeBatchIfFinal(): Promise<CompletionCheck> {
        checks += 1;
        return checks < 4 ? { kind: 'open', open: 4 - checks } : { kind: 'ended', status: 'completed_with_failures' };
      },
    };
    const taskQueue = `settlement-batch-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    const input: SettlementBatchInput = { batchId: randomUUID(), tenantId: randomUUID(), chunkSize: 7, pollIntervalMs: 2_000 };
    const result = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(settlementBatchWorkflow, {
        taskQueue,
        workflowId: `settlement-batch:${input.batchId}`,
        args: [input],
      });
      return handle.result();
    });

    assert.equal(result, 'completed_with_failures');
    assert.equal(queued, 0);
    assert.ok(calls.every((call) => call.limit === 7));
    // Every item judged once: 1,200 in chunks of 7 takes 172 chunks, with a wait between each two.
    assert.equal(calls.filter((_, i) => i % 2 === 0).length, Math.ceil(total / 7));
    for (const wait of waits) {
      const next = calls.find((call) => call.atMs > wait.atMs);
      assert.ok(
        next && next.atMs - wait.atMs >= wait.waitMs,
        `a call ${next ? next.atMs - wait.atMs : 'never'} ms after a wait of ${wait.waitMs}`,
      );
    }
    const runs = [...new Set(calls.map((call) => call.runId))];
    assert.ok(runs.length >= 2, `continued as new (${runs.length} runs)`);
    assert.equal(checks, 4);
  });

  it('a scheduled batch waits its whole time in one timer (no pacing cap), then initiates', async function () {
    this.timeout(60_000);
    const scheduledInMs = 30 * 24 * 60 * 60_000;
    const calls: number[] = [];
    const activities = {
      async initiateBatchItems(): Promise<ChunkResult> {
        calls.push(await env.currentTimeMs());
        return calls.length === 1
          ? { judged: 0, waitMs: scheduledInMs, stopped: false, untilScheduled: true }
          : { judged: 2, waitMs: 0, stopped: true };
      },
      async completeBatchIfFinal(): Promise<CompletionCheck> {
        return { kind: 'ended', status: 'completed' };
      },
    };
    const taskQueue = `settlement-batch-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, activities);
    const input: SettlementBatchInput = { batchId: randomUUID(), tenantId: randomUUID(), chunkSize: 100, pollIntervalMs: 2_000 };
    const result = await worker.runUntil(async () =>
      (
        await env.client.workflow.start(settlementBatchWorkflow, {
          taskQueue,
          workflowId: `settlement-batch:${input.batchId}`,
          args: [input],
        })
      ).result(),
    );
    assert.equal(result, 'completed');
    assert.equal(calls.length, 2, 'one call before the time, one at it');
    assert.ok(calls[1]! - calls[0]! >= scheduledInMs, `initiated ${scheduledInMs - (calls[1]! - calls[0]!)} ms early`);
  });
});
