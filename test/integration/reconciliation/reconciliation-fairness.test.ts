import assert from 'node:assert/strict';
import { METRIC_PREFIX } from '../../../src/metrics/registry';
import { reconciliationWorkflowId } from '../../../src/contracts/reconciliation.contract';
import { fundAccount, provisionAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { parsePrometheusText, total } from '../../helpers/prometheus';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const RUN_BUDGET = 8;
const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

async function listingCalls(stack: Stack): Promise<number> {
  const samples = parsePrometheusText(await stack.infra.metrics.registry.metrics());
  return total(samples, `${METRIC_PREFIX}provider_request_seconds_count`, { endpoint: 'listTransactions' });
}

async function startRun(stack: Stack, tenant: TestTenant): Promise<string> {
  const started = await call(stack.apiUrl, 'POST', '/v1/reconciliation/runs', {
    apiKey: tenant.apiKey,
    body: { from: new Date(Date.now() - 60_000).toISOString() },
  });
  assert.equal(started.status, 202, started.text);
  return started.body.run.ID;
}

async function finishedRun(
  stack: Stack,
  tenant: TestTenant,
  runId: string,
): Promise<{ run: Record<string, any>; exceptions: Array<Record<string, any>> }> {
  const detail = await eventually(
    async () => {
      const response = await call(stack.apiUrl, 'GET', `/v1/reconciliation/runs/${runId}`, { apiKey: tenant.apiKey });
      return ['succeeded', 'failed'].includes(response.body.run?.Status) ? response : null;
    },
    { intervalMs: 200, what: `reconciliation run ${runId}` },
  );
  return detail.body;
}

describe('one tenant cannot starve the others at the provider', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack(
      {
        WORKFLOW_START_RATE: '1000',
        RECONCILIATION_GRACE: '0ms',
        RATE_LIMIT_RECONCILIATION_RUNS: '20/1h',
        RECONCILIATION_RUN_PROVIDER_CALLS: String(RUN_BUDGET),
        RATE_LIMIT_RECONCILIATION_PROVIDER_CALLS: '5/2s',
        SETTLEMENT_POLL_INTERVAL: '200ms',
      },
      { worker: true },
    );
  });
  after(() => stack?.close());

  it("keeps a tenant's run over many accounts to its budget of provider calls against a throttling provider, while another tenant's settlements all go through at once", async () => {
    const busy = await createTenant(stack, 'Many Accounts');
    for (let i = 0; i < 30; i += 1) await provisionAccount(stack, busy.apiKey);
    const payer = await createTenant(stack, 'Paying Out');
    const account = await provisionAccount(stack, payer.apiKey);
    await fundAccount(stack, account.ID, 10_000_000n);
    // The provider throttles a third of its listing calls, asking for a second's pause each time.
    const faults = await call(stack.sandboxUrl, 'POST', '/sandbox/faults', {
      body: { throttleRate: 0.3, retryAfterSeconds: 1, routes: ['/v1/transactions/virtual'] },
    });
    assert.equal(faults.status, 200, faults.text);
    try {
      const listedBefore = await listingCalls(stack);
      const runId = await startRun(stack, busy);
      const refs: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const settled = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
          apiKey: payer.apiKey,
          headers: { 'Idempotency-Key': `fair-${runId}-${i}` },
          body: { amount: '100.00', ...DESTINATION },
        });
        assert.equal(settled.status, 202, settled.text);
        refs.push(settled.body.merchantTxRef);
      }
      for (const ref of refs) {
        const transfer = await eventually(
          async () => {
            const response = await call(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: payer.apiKey });
            return response.body.status === 'success' ? response.body : null;
          },
          { what: `settlement ${ref}` },
        );
        // Each paid on its first attempt: the run's throttled listings never held a settlement back.
        assert.equal(transfer.attemptCount, 1);
      }
      const { run, exceptions } = await finishedRun(stack, busy, runId);
      assert.equal(run.Status, 'succeeded');
      assert.equal(run.Outcome, 'exceptions');
      const budget = exceptions.filter((finding) => finding.Kind === 'provider_budget_reached');
      assert.equal(budget.length, 1, JSON.stringify(exceptions));
      assert.equal(budget[0]!.Details.limit, RUN_BUDGET);
      // A throttled listing counts against the budget like an answered one: the provider saw exactly the budget.
      const listed = (await listingCalls(stack)) - listedBefore;
      assert.equal(listed, RUN_BUDGET, `${listed} listing calls for a budget of ${RUN_BUDGET}`);
    } finally {
      await call(stack.sandboxUrl, 'DELETE', '/sandbox/faults');
    }
  });

  it("waits for the tenant's hourly budget of provider calls with a durable timer, then reads the rest", async () => {
    const tenant = await createTenant(stack, 'Hourly Budget');
    for (let i = 0; i < 7; i += 1) await provisionAccount(stack, tenant.apiKey);
    const runId = await startRun(stack, tenant);
    const { run, exceptions } = await finishedRun(stack, tenant, runId);
    assert.equal(run.Status, 'succeeded');
    assert.deepEqual(
      exceptions.map((finding) => finding.Kind),
      [],
    );
    const history = await stack.infra.temporal.workflow.getHandle(reconciliationWorkflowId(runId)).fetchHistory();
    const timers = (history.events ?? []).filter((event) => event.timerStartedEventAttributes);
    assert.ok(timers.length >= 1, 'the run never waited for its budget');
  });
});
