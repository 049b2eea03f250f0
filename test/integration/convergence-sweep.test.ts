import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ensureSweepSchedule } from '../../src/jobs/sweep-schedule';
import { provisionAccount, statement } from '../helpers/fixtures';
import { call, eventually } from '../helpers/http';
import { createTenant, startStack, type Stack } from '../helpers/stack';

describe('convergence sweep (a Temporal Schedule on the dev server)', () => {
  const taskQueue = `sweep-${randomBytes(4).toString('hex')}`;
  let api: Stack;
  let worker: Stack;
  let scheduleId: string;

  before(async () => {
    // This API cannot reach Temporal at all: every workflow start is left in the outbox.
    api = await startStack({ TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_TASK_QUEUE: taskQueue });
    worker = await startStack({ TEMPORAL_TASK_QUEUE: taskQueue, PROVIDER_BASE_URL: api.sandboxUrl, SWEEP_GRACE: '0ms' }, { worker: true });
  });
  after(async () => {
    await worker.infra.temporal.schedule.getHandle(scheduleId).delete().catch(() => undefined);
    await Promise.all([api.close(), worker.close()]);
  });

  it('starts the confirmation workflow a lost start left behind, so the payment is confirmed', async () => {
    const tenant = await createTenant(api);
    const account = await provisionAccount(api, tenant.apiKey);
    const sent = await call(api.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 2010 } });
    assert.equal(sent.body.delivery.status, 200);
    const pending = await api.infra.db('workflow_outbox').where({ workflow_type: 'paymentConfirmationWorkflow' }).whereNull('started_at').whereRaw(`args->>'providerTxnRef' = ?`, [sent.body.transactionId]);
    assert.equal(pending.length, 1);

    scheduleId = await ensureSweepSchedule(worker.infra.temporal, { taskQueue, intervalMs: 1_000 });
    await eventually(
      async () => {
        const page = await statement(api, tenant.apiKey, account.AccountRef);
        return page.body.lines[0]?.entry.Status === 'confirmed';
      },
      { timeoutMs: 30_000, what: 'the swept confirmation' },
    );
    const row = await api.infra.db('workflow_outbox').where({ workflow_id: pending[0].workflow_id }).first();
    assert.ok(row.started_at);
  });
});
