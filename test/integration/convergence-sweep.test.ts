import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ensureSweepSchedule } from '../../src/jobs/sweep-schedule';
import { paymentConfirmationWorkflowId } from '../../src/temporal/workflow-ids';
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

  it('restarts a confirmation an operator terminated while its credit is provisional; it completes', async () => {
    scheduleId = await ensureSweepSchedule(worker.infra.temporal, { taskQueue, intervalMs: 1_000 });
    const tenant = await createTenant(api);
    const account = await provisionAccount(api, tenant.apiKey);
    const sent = await call(api.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 2010, processingMs: 4_000 } });
    const entry = await api.infra.db('ledger_entries').where({ provider_txn_ref: sent.body.transactionId }).first('id');
    const handle = worker.infra.temporal.workflow.getHandle(paymentConfirmationWorkflowId(entry.id));
    const firstRun = await eventually(
      async () => {
        const described = await handle.describe();
        return described.status.name === 'RUNNING' ? described.runId : null;
      },
      { timeoutMs: 30_000, what: 'the confirmation to run' },
    );
    await handle.terminate('operator terminated it');
    await eventually(
      async () => {
        const page = await statement(api, tenant.apiKey, account.AccountRef);
        return page.body.lines[0]?.entry.Status === 'confirmed';
      },
      { timeoutMs: 30_000, what: 'the restarted confirmation' },
    );
    // The credit shows confirmed a moment before the run that confirmed it closes.
    const latest = await eventually(
      async () => {
        const described = await handle.describe();
        return described.status.name === 'RUNNING' ? null : described;
      },
      { timeoutMs: 10_000, what: 'the restarted run to close' },
    );
    assert.notEqual(latest.runId, firstRun, 'a new run confirmed it');
    assert.equal(latest.status.name, 'COMPLETED');
    // The terminated run stays visible as terminated; the credit was confirmed once.
    assert.equal((await worker.infra.temporal.workflow.getHandle(handle.workflowId, firstRun).describe()).status.name, 'TERMINATED');
  });

  it('does not restart a confirmation that completed, nor a terminated one whose credit is no longer provisional', async () => {
    const restarts = worker.services.confirmationRestarts;
    const tenant = await createTenant(api);
    const account = await provisionAccount(api, tenant.apiKey);
    const sent = await call(api.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 2010 } });
    await eventually(async () => (await statement(api, tenant.apiKey, account.AccountRef)).body.lines[0]?.entry.Status === 'confirmed', { timeoutMs: 30_000, what: 'confirmation' });
    const entry = await api.infra.db('ledger_entries').where({ provider_txn_ref: sent.body.transactionId }).first('id');
    const result = await restarts.restartStalled();
    // The run terminated in the previous test is still listed (the scan looks back a few minutes), but its credit is confirmed.
    assert.ok(result.closedAbnormally >= 1, JSON.stringify(result));
    assert.equal(result.restarted, 0);
    assert.equal((await worker.infra.temporal.workflow.getHandle(paymentConfirmationWorkflowId(entry.id)).describe()).status.name, 'COMPLETED');
  });
});
