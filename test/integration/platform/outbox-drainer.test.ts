import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createOutboxRepo } from '../../../src/workflow-starts/outbox.repo';
import { createWorkflowStarter } from '../../../src/workflow-starts/workflow-starter';
import { createLogger } from '../../../src/logger';
import { createConfirmationClaimsRepo } from '../../../src/payment-confirmation/confirmation-claims.repo';
import { fundAccount, provisionAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { startReceiver } from '../../helpers/receiver';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

/**
 * The outbox drainer against real Postgres and the Temporal dev server. Its starts go to a task queue
 * no worker polls (the workflows just wait there), so only which rows start, and when, is observed.
 */
describe('outbox drainer (fair leasing, poison rows, time budget)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ WORKFLOW_START_RATE: '1000' });
  });
  after(() => stack.close());

  /** Unstarted delivery rows of one tenant, `ageS` seconds old. */
  async function backlog(tenantId: string, count: number, ageS: number, priority = 1): Promise<string[]> {
    const ids = Array.from({ length: count }, () => `webhook-delivery:drain-test-${randomUUID()}`);
    for (let at = 0; at < ids.length; at += 1_000) {
      await stack.infra.db('workflow_outbox').insert(
        ids.slice(at, at + 1_000).map((workflowId, index) => ({
          workflow_id: workflowId,
          workflow_type: 'webhookDeliveryWorkflow',
          args: JSON.stringify({ deliveryId: randomUUID(), retryScheduleMs: [1000], maxAttempts: 1 }),
          search_attributes: JSON.stringify({ TenantId: tenantId }),
          tenant_id: tenantId,
          priority,
          created_at: stack.infra.db.raw(`now() - make_interval(secs => ?)`, [ageS - (at + index) / 10_000]),
        })),
      );
    }
    return ids;
  }

  /**
   * A lease takes every available row: rows other tests' API calls wrote into this database (a start it
   * may still be making) are set aside while a test counts its own. Returns what puts them back.
   */
  async function setOthersAside(ids: string[]): Promise<() => Promise<void>> {
    const parked: string[] = await stack.infra
      .db('workflow_outbox')
      .whereNull('started_at')
      .whereNotIn('workflow_id', ids)
      .update({ available_at: stack.infra.db.raw(`now() + interval '1 hour'`) })
      .returning('workflow_id')
      .then((rows: Array<{ workflow_id: string }>) => rows.map((row) => row.workflow_id));
    return async () => {
      await stack.infra
        .db('workflow_outbox')
        .whereIn('workflow_id', parked)
        .whereNull('started_at')
        .update({ available_at: stack.infra.db.fn.now() });
    };
  }

  const started = async (ids: string[]): Promise<number> =>
    Number((await stack.infra.db('workflow_outbox').whereIn('workflow_id', ids).whereNotNull('started_at').count('* as n').first())!.n);
  const cleanUp = (ids: string[]) => stack.infra.db('workflow_outbox').whereIn('workflow_id', ids).delete();

  it("starts another tenant's row in the first pass, however many older rows one tenant has waiting", async () => {
    const busy = randomUUID();
    const other = randomUUID();
    const busyIds = await backlog(busy, 2_000, 120);
    const [otherId] = await backlog(other, 1, 5);
    const putBack = await setOthersAside([...busyIds, otherId!]);
    try {
      // Oldest first, the other tenant's row would be the 2,001st; fairly, it is in the first pass of 50.
      const outbox = createOutboxRepo(stack.infra.db);
      const first = await outbox.lease({ graceMs: 0, limit: 50, perTenant: 32, leaseMs: 60_000 });
      assert.equal(first.length, 33, 'one tenant gives a pass at most 32 rows; the other tenant its one');
      assert.ok(
        first.slice(0, 2).some((entry) => entry.workflowId === otherId),
        "the other tenant's row is among the first of the pass",
      );
      await outbox.unlease(first.map((entry) => entry.workflowId));
      // And a drainer at 25 starts a second starts it at once, long before the busy tenant's backlog.
      const paced = createWorkflowStarter({
        client: stack.infra.temporal,
        outbox,
        logger: createLogger('silent', 'test'),
        options: { taskQueue: stack.config.TEMPORAL_TASK_QUEUE, startsPerSecond: 25 },
      });
      await paced.drain({ graceMs: 0, limit: 50, budgetMs: 1_500 });
      await paced.close();
      assert.equal(await started([otherId!]), 1, "the other tenant's row started at once");
      assert.ok((await started(busyIds)) < 100, "the busy tenant's backlog is still waiting");
    } finally {
      await cleanUp([...busyIds, otherId!]);
      await putBack();
    }
  });

  it('starts settlements before deliveries within a tenant', async () => {
    const tenant = randomUUID();
    const deliveries = await backlog(tenant, 30, 60, 1);
    const [settlement] = await backlog(tenant, 1, 1, 0);
    try {
      const leased = await createOutboxRepo(stack.infra.db).lease({ graceMs: 0, limit: 5, perTenant: 5, leaseMs: 1_000 });
      const mine = leased.filter((entry) => [settlement, ...deliveries].includes(entry.workflowId));
      assert.equal(mine[0]?.workflowId, settlement);
    } finally {
      await cleanUp([...deliveries, settlement!]);
    }
  });

  it('a row whose start always fails backs off and never blocks the rows behind it', async () => {
    const tenant = randomUUID();
    // Temporal refuses a workflow id this long: this start can never succeed.
    const poison = `webhook-delivery:${'p'.repeat(1_100)}`;
    await stack.infra.db('workflow_outbox').insert({
      workflow_id: poison,
      workflow_type: 'webhookDeliveryWorkflow',
      args: JSON.stringify({ deliveryId: randomUUID(), retryScheduleMs: [1000], maxAttempts: 1 }),
      search_attributes: JSON.stringify({ TenantId: tenant }),
      tenant_id: tenant,
      created_at: stack.infra.db.raw(`now() - interval '1 minute'`),
    });
    const behind = await backlog(tenant, 5, 30);
    try {
      const first = await stack.services.starter.drain({ graceMs: 0, limit: 100, budgetMs: 30_000 });
      assert.ok(first.failed >= 1);
      assert.equal(await started(behind), 5, 'the rows behind the poison row started');
      const row = await stack.infra
        .db('workflow_outbox')
        .where({ workflow_id: poison })
        .first('attempts', 'last_error', 'started_at', stack.infra.db.raw('available_at > now() AS backing_off'));
      assert.deepEqual([row.attempts, row.started_at, row.backing_off], [1, null, true]);
      assert.ok(row.last_error);
      const second = await createOutboxRepo(stack.infra.db).lease({ graceMs: 0, limit: 100, perTenant: 32, leaseMs: 1_000 });
      assert.ok(!second.some((entry) => entry.workflowId === poison), 'not retried until its back-off is over');
    } finally {
      await cleanUp([poison, ...behind]);
    }
  });

  it('the convergence check stops at its time budget and when cancelled, leaving the rest available at once', async () => {
    const tenant = randomUUID();
    const ids = await backlog(tenant, 300, 30);
    const slow = createWorkflowStarter({
      client: stack.infra.temporal,
      outbox: createOutboxRepo(stack.infra.db),
      logger: createLogger('silent', 'test'),
      options: { taskQueue: stack.config.TEMPORAL_TASK_QUEUE, startsPerSecond: 25 },
    });
    try {
      const began = Date.now();
      const budgeted = await slow.drain({ graceMs: 0, limit: 300, budgetMs: 500 });
      assert.ok(Date.now() - began < 5_000, 'returned soon after its budget');
      assert.ok(budgeted.started > 0 && budgeted.started < 100, JSON.stringify(budgeted));
      const available = Number(
        (await stack.infra
          .db('workflow_outbox')
          .whereIn('workflow_id', ids)
          .whereNull('started_at')
          .where('available_at', '<=', stack.infra.db.fn.now())
          .count('* as n')
          .first())!.n,
      );
      assert.equal(available, 300 - budgeted.started, 'rows it did not try are available again at once');

      const cancelled = new AbortController();
      cancelled.abort();
      const none = await slow.drain({ graceMs: 0, limit: 300, signal: cancelled.signal });
      assert.equal(none.started, 0);
    } finally {
      await slow.close();
      await cleanUp(ids);
    }
  });

  it("every writer puts a start in its tenant's lane with its job kind's priority: settlement 0, delivery 1, reconciliation run 2", async () => {
    const receiver = await startReceiver([200]);
    try {
      const tenant = await createTenant(stack);
      const account = await provisionAccount(stack, tenant.apiKey, { callbackUrl: receiver.url });
      await fundAccount(stack, account.ID, 100_000n);
      const settled = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
        apiKey: tenant.apiKey,
        body: { amount: '10.00', bankCode: '058', accountNumber: '0123456789' },
      });
      assert.equal(settled.status, 202, settled.text);
      const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 2010 } });
      assert.equal(sent.body.delivery.status, 200);
      const run = await call(stack.apiUrl, 'POST', '/v1/reconciliation/runs', { apiKey: tenant.apiKey, body: {} });
      assert.equal(run.status, 202, run.text);
      const rows: Array<{ workflow_type: string; tenant_id: string; priority: number }> = await stack.infra
        .db('workflow_outbox')
        .whereRaw(`search_attributes->>'TenantId' = ?`, [tenant.tenantId])
        .select('workflow_type', 'tenant_id', 'priority');
      assert.deepEqual(Object.fromEntries(rows.map((row) => [row.workflow_type, [row.tenant_id, row.priority]])), {
        settlementWorkflow: [tenant.tenantId, 0],
        webhookDeliveryWorkflow: [tenant.tenantId, 1],
        reconciliationWorkflow: [tenant.tenantId, 2],
      });
    } finally {
      await receiver.close();
    }
  });

  it('two drainers never start the same row', async () => {
    const tenants = [randomUUID(), randomUUID(), randomUUID()];
    const ids = (await Promise.all(tenants.map((tenant) => backlog(tenant, 100, 30)))).flat();
    // The counts are this test's 300 alone.
    const putBack = await setOthersAside(ids);
    const starters = [0, 1].map(() =>
      createWorkflowStarter({
        client: stack.infra.temporal,
        outbox: createOutboxRepo(stack.infra.db),
        logger: createLogger('silent', 'test'),
        options: { taskQueue: stack.config.TEMPORAL_TASK_QUEUE, startsPerSecond: 1_000 },
      }),
    );
    try {
      const passes = await Promise.all(starters.map((starter) => starter.drain({ graceMs: 0, limit: 40, budgetMs: 60_000 })));
      // Each row leased once: the passes found disjoint rows, and together every row.
      assert.equal(passes[0]!.found + passes[1]!.found, ids.length);
      assert.equal(passes[0]!.started + passes[1]!.started, ids.length);
      assert.equal(await started(ids), ids.length);
    } finally {
      await Promise.all(starters.map((starter) => starter.close()));
      await cleanUp(ids);
      await putBack();
    }
  });
});

describe("fairness: another tenant's delivery while one tenant's confirmations wait", () => {
  let api: Stack;
  let worker: Stack;
  before(async () => {
    // The API cannot reach Temporal (as when its start rate is spent in a burst): every start is the worker's.
    api = await startStack({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    worker = await startStack({ TEMPORAL_TASK_QUEUE: api.config.TEMPORAL_TASK_QUEUE, PROVIDER_BASE_URL: api.sandboxUrl }, { worker: true });
  });
  after(() => Promise.all([api.close(), worker.close()]));

  it('the delivery arrives within seconds while thousands of confirmations of another tenant are queued', async () => {
    const busy = await createTenant(api, 'Busy Tenant');
    const queued = Array.from({ length: 5_000 }, (_unused, index) => ({
      entryId: randomUUID(),
      tenantId: busy.tenantId,
      accountRef: `va_busy_${index % 100}`,
      providerTxnRef: `API-VACT_TRA-BUSY-${randomUUID()}`,
      postedAt: new Date(),
    }));
    await createConfirmationClaimsRepo(api.infra.db).enqueue(queued);
    const receiver = await startReceiver([200]);
    try {
      const other = await createTenant(api, 'Other Tenant');
      const account = await provisionAccount(api, other.apiKey, { callbackUrl: receiver.url });
      const sentAt = Date.now();
      const sent = await call(api.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025 } });
      assert.equal(sent.body.delivery.status, 200);
      await eventually(async () => receiver.calls.length > 0, { what: "the other tenant's delivery" });
      const tookS = (receiver.calls[0]!.at - sentAt) / 1000;
      assert.ok(tookS < 15, `delivered after ${tookS} s`);
    } finally {
      await receiver.close();
      await api.infra
        .db('confirmation_claims')
        .whereIn(
          'entry_id',
          queued.map((request) => request.entryId),
        )
        .delete();
    }
  });
});
