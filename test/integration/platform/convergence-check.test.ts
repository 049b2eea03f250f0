import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ensurePeriodicSchedule, periodicSchedules } from '../../../src/workflow-starts/periodic-schedules';
import { provisionAccount, statement } from '../../helpers/fixtures';
import { startReceiver } from '../../helpers/receiver';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack } from '../../helpers/stack';
import { paymentConfirmationBatchWorkflowId } from '../../../src/contracts/payment-confirmation.contract';

describe('convergence check (a Temporal Schedule on the dev server)', () => {
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
    await worker.infra.temporal.schedule
      .getHandle(scheduleId)
      .delete()
      .catch(() => undefined);
    await Promise.all([api.close(), worker.close()]);
  });

  it("starts the delivery a lost start left behind (the worker's outbox drainer) and confirms the queued payment in a batch", async () => {
    const receiver = await startReceiver([200]);
    try {
      const tenant = await createTenant(api);
      const account = await provisionAccount(api, tenant.apiKey, { callbackUrl: receiver.url });
      const sent = await call(api.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 2010 } });
      assert.equal(sent.body.delivery.status, 200);
      const entry = await api.infra.db('ledger_entries').where({ provider_txn_ref: sent.body.transactionId }).first('id');
      assert.ok(await api.infra.db('confirmation_claims').where({ entry_id: entry.id }).first(), 'queued for a batch');
      await eventually(
        async () => {
          const page = await statement(api, tenant.apiKey, account.AccountRef);
          return page.body.lines[0]?.entry.Status === 'confirmed';
        },
        { what: 'the batched confirmation' },
      );
      await eventually(async () => receiver.calls.length === 1, { what: 'the delivery the API could not start' });
      const row = await api.infra
        .db('workflow_outbox')
        .where({ workflow_type: 'webhookDeliveryWorkflow' })
        .whereRaw(`search_attributes->>'TenantId' = ?`, [tenant.tenantId])
        .first();
      assert.ok(row.started_at);
    } finally {
      await receiver.close();
    }
  });

  it('puts back in the queue the credits of a batch an operator terminated; a new batch confirms them', async () => {
    scheduleId = await ensurePeriodicSchedule(worker.infra.temporal, taskQueue, {
      ...periodicSchedules(worker.config).convergenceCheck,
      intervalMs: 1_000,
    });
    const tenant = await createTenant(api);
    const account = await provisionAccount(api, tenant.apiKey);
    // PROCESSING at the provider until the test says otherwise: the batch still runs when it is terminated.
    const sent = await call(api.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 2010, status: 'PROCESSING' },
    });
    const entry = await api.infra.db('ledger_entries').where({ provider_txn_ref: sent.body.transactionId }).first('id');
    const claim = await eventually(
      async () => (await api.infra.db('confirmation_claims').where({ entry_id: entry.id }).whereNotNull('batch_id').first()) ?? null,
      {
        what: 'the claim',
      },
    );
    const handle = worker.infra.temporal.workflow.getHandle(paymentConfirmationBatchWorkflowId(claim.batch_id));
    await eventually(async () => (await handle.describe()).status.name === 'RUNNING', { what: 'the batch to run' });
    await handle.terminate('operator terminated it');
    await call(api.sandboxUrl, 'POST', `/sandbox/payments/${sent.body.transactionId}/status`, { body: { status: 'SUCCESS' } });
    await eventually(
      async () => {
        const page = await statement(api, tenant.apiKey, account.AccountRef);
        return page.body.lines[0]?.entry.Status === 'confirmed';
      },
      { what: 'the credit released by the convergence check, confirmed by a new batch' },
    );
    assert.equal((await handle.describe()).status.name, 'TERMINATED');
    assert.equal((await api.infra.db('ledger_entries').where({ reverses_entry_id: entry.id })).length, 0);
  });

  it('does not queue again a credit already confirmed', async () => {
    const tenant = await createTenant(api);
    const account = await provisionAccount(api, tenant.apiKey);
    const sent = await call(api.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 2010 } });
    await eventually(async () => (await statement(api, tenant.apiKey, account.AccountRef)).body.lines[0]?.entry.Status === 'confirmed', {
      what: 'confirmation',
    });
    const entry = await api.infra.db('ledger_entries').where({ provider_txn_ref: sent.body.transactionId }).first('id');
    await worker.services.batchClaimReleases.releaseStopped(0);
    assert.equal(
      await api.infra.db('confirmation_claims').where({ entry_id: entry.id }).first(),
      undefined,
      'a confirmed credit is not queued again',
    );
  });
});
