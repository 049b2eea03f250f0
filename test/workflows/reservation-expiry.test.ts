import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowFailedError } from '@temporalio/client';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { reservationExpiryWorkflow } from '../../workflows/reservation-expiry.workflow';
import type { ReservationExpiryResult } from '../../src/contracts/reservation-expiry.contract';
import { ENVIRONMENT_STARTUP_TIMEOUT_MS, sharedTimeSkippingEnvironment, testWorker } from '../helpers/temporal';

describe('reservationExpiryWorkflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  before(async function () {
    this.timeout(ENVIRONMENT_STARTUP_TIMEOUT_MS);
    env = await sharedTimeSkippingEnvironment();
  });

  /** Runs the workflow once against `expireDueReservations`, as its Schedule starts it. */
  async function run(expireDueReservations: () => Promise<ReservationExpiryResult>): Promise<ReservationExpiryResult> {
    const taskQueue = `reservation-expiry-${randomUUID()}`;
    const worker = await testWorker(env.nativeConnection, taskQueue, { expireDueReservations });
    return worker.runUntil(
      env.client.workflow.execute(reservationExpiryWorkflow, { taskQueue, workflowId: `reservation-expiry:${randomUUID()}` }),
    );
  }

  it("expires what is due in one activity and reports how many; an attempt that failed (a worker's crash) is retried", async () => {
    let attempts = 0;
    const result = await run(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('the worker died mid-run');
      return { expired: 3 };
    });
    assert.deepEqual(result, { expired: 3 });
    assert.equal(attempts, 2);
  });

  it('gives up after three attempts: the run fails, and the next run of the Schedule starts anew', async () => {
    let attempts = 0;
    await assert.rejects(
      run(async () => {
        attempts += 1;
        throw new Error('database unreachable');
      }),
      WorkflowFailedError,
    );
    assert.equal(attempts, 3);
  });
});
