import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKnex, type Db } from '../../src/db';
import { cliTenant, provision, statementLines } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import { startSystem, type RunningSystem } from '../helpers/processes';
import { startReceiver } from '../helpers/receiver';
import { assertLedgerVerifies, cleanUp, countOf, RESILIENCE_TIMINGS, startIsolatedTemporal, type IsolatedTemporal } from './scenario-steps';
import { webhookDeliveryWorkflowId } from '../../src/contracts/webhook-delivery.contract';

const PAYMENTS_PER_ACCOUNT = 5;

describe('resilience: Temporal stopped while payment webhooks arrive', () => {
  let stateDir: string | undefined;
  let temporal: IsolatedTemporal | undefined;
  let sys: RunningSystem | undefined;
  let db: Db | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

  after(async () => {
    await cleanUp(
      () => sys?.stop(),
      () => temporal?.stop(),
      () => db?.destroy(),
      () => receiver?.close(),
      () => temporal && rmSync(temporal.logFile, { force: true }),
      () => stateDir && rmSync(stateDir, { recursive: true, force: true }),
    );
  });

  it('answers every webhook 200 and records it; once Temporal is back, the convergence check starts every confirmation and delivery', async () => {
    // Its SQLite file keeps the workflows and the convergence check Schedule across the restart.
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'ledger-resilience-temporal-'));
    const dbFile = path.join(stateDir, 'temporal.db');
    temporal = await startIsolatedTemporal({ dbFile });
    const port = temporal.port;
    sys = await startSystem({ ...RESILIENCE_TIMINGS, TEMPORAL_ADDRESS: temporal.address });
    const running = sys;
    db = createKnex({ DATABASE_URL: running.env.DATABASE_URL!, DATABASE_POOL_MAX: 2 });
    receiver = await startReceiver([200]);
    const { apiKey } = await cliTenant(running, 'Resilience Temporal outage');
    const accounts = [
      await provision(running, apiKey, { callbackUrl: receiver.url }),
      await provision(running, apiKey, { callbackUrl: receiver.url }),
      await provision(running, apiKey),
      await provision(running, apiKey),
    ];

    await temporal.stop();
    const payments = accounts.flatMap((account) =>
      Array.from({ length: PAYMENTS_PER_ACCOUNT }, (_, i) => ({ accountRef: account.AccountRef, amount: 1_010 + i, fee: 10 })),
    );
    const sent = await Promise.all(
      payments.map(async (body) => {
        const sentAt = Date.now();
        const response = await call(running.sandboxUrl, 'POST', '/sandbox/payments', { body });
        return { delivery: response.body.delivery, tookMs: Date.now() - sentAt };
      }),
    );
    assert.deepEqual(
      sent.map(({ delivery }) => delivery),
      payments.map(() => ({ status: 200 })),
    );
    // The answer must not wait on Temporal (a start gives up after WORKFLOW_START_TIMEOUT and is left to the convergence check).
    assert.ok(
      sent.every(({ tookMs }) => tookMs < 3_000),
      `slow webhook answers: ${sent.map(({ tookMs }) => tookMs).join(', ')} ms`,
    );

    // Recorded while Temporal is down: provisional credits, and their workflows waiting in the outbox.
    const entryIds: string[] = [];
    for (const account of accounts) {
      const lines = await statementLines(running, apiKey, account.AccountRef);
      assert.deepEqual(
        lines.map((line) => line.entry.Status),
        Array(PAYMENTS_PER_ACCOUNT).fill('provisional'),
      );
      entryIds.push(...lines.map((line) => line.entry.ID!));
    }
    const deliveryIds = (await db('webhook_deliveries')
      .whereIn(
        'account_id',
        accounts.map((account) => account.ID),
      )
      .pluck('id')) as string[];
    assert.equal(deliveryIds.length, 2 * PAYMENTS_PER_ACCOUNT);
    // Confirmations wait in the batch queue, deliveries in the outbox.
    assert.equal(await countOf(db('confirmation_claims').whereIn('entry_id', entryIds)), entryIds.length);
    const workflowIds = deliveryIds.map(webhookDeliveryWorkflowId);
    const unstarted = (): Promise<number> => countOf(db!('workflow_outbox').whereIn('workflow_id', workflowIds).whereNull('started_at'));
    assert.equal(await unstarted(), workflowIds.length);

    // Long enough for the worker's polls and the API's starts to fail and back off, as in a real outage.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    temporal = await startIsolatedTemporal({ port, dbFile });
    await eventually(async () => (await unstarted()) === 0, { what: 'the worker to start every delivery' });
    for (const account of accounts) {
      await eventually(
        async () => (await statementLines(running, apiKey, account.AccountRef)).every((line) => line.entry.Status === 'confirmed'),
        {
          what: `every credit of ${account.AccountRef} to be confirmed`,
        },
      );
    }
    await eventually(
      async () => {
        const unfinished = await db!('webhook_deliveries')
          .whereIn('id', deliveryIds)
          .whereNot({ status: 'succeeded' })
          .select('id', 'status', 'attempt_count', 'last_error');
        if (unfinished.length > 0) throw new Error(`unfinished deliveries ${JSON.stringify(unfinished)}`);
        return true;
      },
      { what: 'every delivery to succeed' },
    );
    assert.deepEqual(receiver.calls.map((received) => received.headers['x-event-id']).sort(), [...deliveryIds].sort());
    const balances = await Promise.all(
      accounts.map(async (account) => (await statementLines(running, apiKey, account.AccountRef)).at(-1)!.runningBalance),
    );
    assert.deepEqual(
      balances,
      accounts.map(() => '5010.00'),
    );
    await assertLedgerVerifies(running.env);
  });
});
