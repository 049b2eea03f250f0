import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { createLedgerPipelineReads } from '../../../src/ledger/ledger-reads';
import { startApiMetrics } from '../../../src/metrics/api-metrics';
import type { MetricsServer } from '../../../src/metrics/metrics-server';
import { SETTLE_MARGIN_SECONDS } from '../../../src/metrics/pipeline.repo';
import { call, eventually } from '../../helpers/http';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../../helpers/fixtures';
import { gaugeValue, scrape, total, type Sample } from '../../helpers/prometheus';
import { scratchDatabase } from '../../helpers/scratch-database';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import knex from 'knex';

const TOKEN = 'metrics-token-for-the-test-0123';

describe('metrics: /metrics of the API', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let account: ProvisionedAccount;
  let metrics: MetricsServer;
  let url: string;
  const read = (): Promise<Sample[]> => scrape(url, TOKEN);

  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    account = await provisionAccount(stack, tenant.apiKey);
    // As api.ts serves it when it runs alone: its own registry and the pipeline read from Postgres (no cache here).
    metrics = await startApiMetrics({
      config: { METRICS_HOST: '127.0.0.1', METRICS_PORT: 0, METRICS_TOKEN: TOKEN, METRICS_CACHE: 0 },
      clusters: [{ name: 'main', db: stack.infra.db, ledger: createLedgerPipelineReads(stack.infra.db) }],
      logger: stack.infra.logger,
      processMetrics: () => stack.infra.metrics.registry.metrics(),
    });
    url = `http://127.0.0.1:${metrics.port}/metrics`;
  });
  after(async () => {
    await metrics.close();
    await stack.close();
  });

  it('answers only GET /metrics, and only with the bearer token when one is configured', async () => {
    assert.equal((await fetch(url)).status, 401);
    assert.equal((await fetch(url, { headers: { authorization: 'Bearer wrong-token-of-the-same-size' } })).status, 401);
    const ok = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal((await fetch(`http://127.0.0.1:${metrics.port}/other`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404);
  });

  it('counts provider webhooks by category with their latency, and shows the credit as a pending confirmation', async () => {
    const before = await read();
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }))).status, 200);
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }), { forged: true })).status, 200);
    const after = await read();
    const moved = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);
    assert.equal(moved('nuban_provider_webhooks_total', { category: 'payment' }), 1);
    assert.equal(moved('nuban_provider_webhooks_total', { category: 'sig_invalid' }), 1);
    assert.equal(moved('nuban_provider_webhook_ingest_seconds_count', { category: 'payment' }), 1);
    assert.ok(moved('nuban_provider_webhook_ingest_seconds_sum', { category: 'payment' }) > 0);
    assert.equal(moved('nuban_payment_posting_group_size_count'), 1);
    // No worker runs here: the credit stays provisional.
    assert.ok(total(after, 'nuban_confirmations_pending') >= 1);
    assert.ok(gaugeValue(after, 'nuban_confirmations_oldest_pending_age_seconds') >= 0);
    assert.equal(total(after, 'nuban_pipeline_metrics_up'), 1);
    // No tenant id is ever a label.
    assert.ok(after.every((sample) => !Object.values(sample.labels).includes(tenant.tenantId)));
  });

  it("shows money held over customers' KYC limits", async () => {
    const held = await provisionAccount(stack, tenant.apiKey);
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: held.AccountRef, amount: 70_050, fee: 50 }))).status, 200);
    const after = await read();
    assert.ok(total(after, 'nuban_held_money_naira') >= 20_000);
    assert.ok(total(after, 'nuban_held_credits') >= 1);
    assert.ok(gaugeValue(after, 'nuban_held_oldest_age_seconds') >= 0);
  });

  it('shows the age of the oldest settlement not yet final (a payout the provider leaves ambiguous stays open)', async () => {
    await fundAccount(stack, account.ID, 100_000n);
    const settled = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '10.00', bankCode: '058', accountNumber: '0123456789' },
    });
    assert.equal(settled.status, 202, settled.text);
    // No worker runs here: it stays pending. Requested two hours ago, as far as the gauge can tell.
    await stack.infra
      .db('settlements')
      .where({ merchant_tx_ref: settled.body.merchantTxRef })
      .update({ created_at: stack.infra.db.raw("now() - interval '2 hours'") });
    assert.ok(gaugeValue(await read(), 'nuban_settlements_oldest_open_age_seconds') >= 7_200);
  });

  it('shows the outbox backlog and the age of its oldest unstarted job by workflow type', async () => {
    await stack.infra.db('workflow_outbox').insert({
      workflow_id: `metrics-test:${Date.now()}`,
      workflow_type: 'webhookDeliveryWorkflow',
      args: JSON.stringify({}),
      created_at: stack.infra.db.raw("now() - interval '90 seconds'"),
    });
    const samples = await read();
    assert.ok(total(samples, 'nuban_outbox_backlog', { workflow_type: 'webhookDeliveryWorkflow' }) >= 1);
    assert.ok(total(samples, 'nuban_outbox_oldest_unstarted_age_seconds', { workflow_type: 'webhookDeliveryWorkflow' }) >= 90);
  });

  it('observes the confirmation lag of credits confirmed since the previous read', async () => {
    // The first read may still count changes up to the settle margin before it.
    const windowStart = await stack.infra.db
      .raw('SELECT clock_timestamp() - make_interval(secs => ?) AS at', [SETTLE_MARGIN_SECONDS])
      .then((result) => result.rows[0].at as Date);
    const before = await read();
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }))).status, 200);
    const entry = await stack.infra
      .db('ledger_entries')
      .where({ account_id: account.ID, status: 'provisional' })
      .orderBy('seq', 'desc')
      .first('id');
    await stack.infra.db.transaction((trx) => stack.services.postingEngine.confirm(trx, entry.id));
    // A change is read once its transaction is surely committed (a few seconds later): wait for it.
    const after = await eventually(
      async () => {
        const samples = await read();
        return total(samples, 'nuban_confirmation_lag_seconds_count') > total(before, 'nuban_confirmation_lag_seconds_count')
          ? samples
          : null;
      },
      { intervalMs: 1_000, what: 'the confirmation in the lag histogram' },
    );
    // Other tests' workers share the database and may confirm credits meanwhile: each counted once, never more.
    const confirmedMeanwhile = Number(
      (
        await stack.infra
          .db('ledger_entries')
          .where({ kind: 'payment', status: 'confirmed' })
          .where('status_changed_at', '>=', windowStart)
          .count<{ count: string }[]>('* as count')
          .first()
      )?.count,
    );
    const observed = total(after, 'nuban_confirmation_lag_seconds_count') - total(before, 'nuban_confirmation_lag_seconds_count');
    assert.ok(
      observed >= 1 && observed <= confirmedMeanwhile,
      `${observed} confirmations observed, ${confirmedMeanwhile} made since the first read's window`,
    );
    assert.ok(total(after, 'nuban_confirmation_lag_seconds_sum') > total(before, 'nuban_confirmation_lag_seconds_sum'));
  });

  it('shows the open alert findings by kind, down again once one is resolved', async () => {
    const before = await read();
    const id = crypto.randomUUID();
    await stack.infra.db('reconciliation_exceptions').insert({
      id,
      tenant_id: tenant.tenantId,
      kind: 'settlement_paid_twice',
      severity: 'alert',
      status: 'open',
      subject: `metrics-${id}`,
    });
    const opened = await read();
    assert.equal(
      total(opened, 'nuban_reconciliation_open_alerts', { kind: 'settlement_paid_twice' }) -
        total(before, 'nuban_reconciliation_open_alerts', { kind: 'settlement_paid_twice' }),
      1,
    );
    await stack.infra
      .db('reconciliation_exceptions')
      .where({ id })
      .update({ status: 'resolved', resolution: 'noted', resolved_via: 'cli', resolved_at: stack.infra.db.fn.now() });
    const resolved = await read();
    assert.equal(
      total(resolved, 'nuban_reconciliation_open_alerts', { kind: 'settlement_paid_twice' }),
      total(before, 'nuban_reconciliation_open_alerts', { kind: 'settlement_paid_twice' }),
    );
    assert.ok(
      resolved.some((sample) => sample.name === 'nuban_reconciliation_open_alerts' && sample.labels.kind === 'settlement_paid_twice'),
      'a kind once seen stays, at its count',
    );
  });

  it('times provider calls by endpoint and counts the failed ones', async () => {
    const before = await read();
    await call(stack.sandboxUrl, 'POST', '/sandbox/faults', { body: { failureRate: 1, latencyMs: 0, routes: ['/v1/accounts/virtual'] } });
    try {
      const refused = await call(stack.apiUrl, 'POST', '/v1/accounts', {
        apiKey: tenant.apiKey,
        body: { externalRef: 'metrics-fault', name: 'Ada Obi' },
      });
      assert.equal(refused.status, 503);
    } finally {
      await call(stack.sandboxUrl, 'DELETE', '/sandbox/faults');
    }
    const after = await read();
    assert.ok(
      total(after, 'nuban_provider_request_seconds_count', { endpoint: 'createVirtualAccount', outcome: '2xx' }) >= 1,
      'the earlier provisioning was timed',
    );
    assert.ok(
      total(after, 'nuban_provider_request_errors_total', { endpoint: 'createVirtualAccount', reason: 'http_503' }) >
        total(before, 'nuban_provider_request_errors_total', { endpoint: 'createVirtualAccount', reason: 'http_503' }),
    );
  });

  it("reads every cluster's pipeline with several clusters, each sample labelled with its cluster; one cluster's carry no label", async () => {
    assert.ok(
      (await read()).every((sample) => sample.labels.cluster === undefined),
      'one cluster: the figures as they always were',
    );
    const other = await scratchDatabase('metrics_b');
    const otherDb = knex({ client: 'pg', connection: other.url });
    const both = await startApiMetrics({
      config: { METRICS_HOST: '127.0.0.1', METRICS_PORT: 0, METRICS_TOKEN: TOKEN, METRICS_CACHE: 0 },
      clusters: [
        { name: 'a', db: stack.infra.db, ledger: createLedgerPipelineReads(stack.infra.db) },
        { name: 'b', db: otherDb, ledger: createLedgerPipelineReads(otherDb) },
      ],
      logger: stack.infra.logger,
      processMetrics: async () => '',
    });
    try {
      assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }))).status, 200);
      const samples = await scrape(`http://127.0.0.1:${both.port}/metrics`, TOKEN);
      for (const cluster of ['a', 'b'])
        assert.equal(gaugeValue(samples, 'nuban_pipeline_metrics_up', { cluster }), 1, `cluster ${cluster} read`);
      assert.ok(gaugeValue(samples, 'nuban_confirmations_pending', { cluster: 'a' }) >= 1, 'the credit, on its cluster');
      assert.equal(gaugeValue(samples, 'nuban_confirmations_pending', { cluster: 'b' }), 0, 'nothing pending on the other');
    } finally {
      await both.close();
      await otherDb.destroy();
      await other.drop();
    }
  });
});
