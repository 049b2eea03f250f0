import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import type { temporal as temporalProto } from '@temporalio/proto';
import { balanceSweepScheduleId } from '../../src/contracts/balance-sweep.contract';
import { convergenceCheckScheduleId } from '../../src/contracts/convergence-check.contract';
import { dynamicAccountReturnsScheduleId } from '../../src/contracts/dynamic-account-returns.contract';
import { reconciliationScheduleId } from '../../src/contracts/reconciliation.contract';
import { reservationExpiryScheduleId } from '../../src/contracts/reservation-expiry.contract';
import { retentionScheduleId } from '../../src/contracts/retention.contract';
import { settlementWorkflowId } from '../../src/contracts/settlement.contract';
import { createTemporalClient } from '../../src/temporal/client';
import { call, eventually, type HttpResponse } from '../helpers/http';
import { startSystem, type RunningSystem } from '../helpers/processes';
import { scrape, total } from '../helpers/prometheus';
import { magicAccountNumber } from '../helpers/sandbox-values';
import { deleteSchedulesAndClose } from '../helpers/schedules';
import { scratchDatabase } from '../helpers/scratch-database';
import { E2E_TIMINGS } from './system';
import { cliTenant, provision, statementLines, type E2eTenant } from './tenant';

const DESTINATION = { bankCode: '044', accountNumber: '0123456789' };

/** A payment the provider knows, signed by the sandbox but not delivered: the test sends it to a host of its choosing. */
interface SignedPayment {
  transactionId: string;
  payload: unknown;
  headers: Record<string, string>;
}

async function providerPayment(sandboxUrl: string, accountRef: string, amount: number): Promise<SignedPayment> {
  const sent = await call(sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef, amount, fee: 10, deliver: false } });
  assert.equal(sent.status, 200, sent.text);
  return sent.body;
}

const deliverTo = (host: RunningSystem, payment: SignedPayment): Promise<HttpResponse> =>
  call(host.apiUrl, 'POST', '/webhooks/provider', {
    rawBody: JSON.stringify(payment.payload),
    headers: {
      'provider-signature': payment.headers['provider-signature']!,
      'provider-timestamp': payment.headers['provider-timestamp']!,
    },
  });

/** Every worker identity in a workflow's history (who took its workflow and activity tasks). */
function identitiesIn(history: temporalProto.api.history.v1.IHistory): Set<string> {
  const found = new Set<string>();
  for (const event of history.events ?? [])
    for (const attributes of [
      event.workflowTaskStartedEventAttributes,
      event.workflowTaskCompletedEventAttributes,
      event.activityTaskStartedEventAttributes,
    ])
      if (attributes?.identity) found.add(attributes.identity);
  return found;
}

/**
 * Two hosts, as `START_HOSTS=2 npm start` runs them: each an API and a worker on ports of their own, both on one
 * database, one Temporal task queue and one sandbox provider (whose webhooks go to the first host). Nothing
 * may depend on being the only host: the claims, locks and keys in Postgres and the ids and Schedules in
 * Temporal keep every payment, payout, schedule and start once.
 */
describe('e2e: many hosts (two API and worker groups on one database and one Temporal)', () => {
  let first: RunningSystem;
  let second: RunningSystem;
  let hosts: RunningSystem[];
  let database: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
  let temporal: Client;
  let tenant: E2eTenant;
  let accounts: Array<{ AccountRef: string; ID: string }>;
  const taskQueue = `e2e-hosts-${randomBytes(4).toString('hex')}`;
  const cleanUp: string[] = [];

  before(async () => {
    database = await scratchDatabase('hosts');
    const shared = {
      ...E2E_TIMINGS,
      DATABASE_URL: database.url,
      TEMPORAL_TASK_QUEUE: taskQueue,
      // One start a second from each process: a burst of settlements leaves most of its starts to the outbox drainers.
      WORKFLOW_START_RATE: '1',
      RATE_LIMIT_NAME_LOOKUPS: '4/1m',
    };
    first = await startSystem(shared);
    second = await startSystem(shared, { sandboxOf: first });
    hosts = [first, second];
    temporal = createTemporalClient({ TEMPORAL_ADDRESS: first.env.TEMPORAL_ADDRESS!, TEMPORAL_NAMESPACE: 'default' });
    tenant = await cliTenant(first, 'Many Hosts E2E');
    accounts = await Promise.all([0, 1, 2, 3].map((index) => provision(hosts[index % 2]!, tenant.apiKey)));
  });

  after(async () => {
    await second?.stop();
    await first?.stop();
    if (temporal) await deleteSchedulesAndClose(temporal, cleanUp);
    await database?.drop();
  });

  const settle = (host: RunningSystem, accountRef: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(host.apiUrl, 'POST', `/v1/accounts/${accountRef}/settle`, { apiKey: tenant.apiKey, headers, body });

  const transferStatus = async (ref: string): Promise<string> =>
    (await call(first.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey })).body.status;

  const payoutsAtSandbox = async (ref: string): Promise<number> =>
    (await call(first.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body.payouts;

  /** Workflow starts of `workflowType` the host's processes made (its API's scrape and its worker's). */
  async function startsOn(host: RunningSystem, workflowType: string): Promise<{ api: number; worker: number }> {
    const api = total(await scrape(host.metricsUrl), 'nuban_workflow_starts_total', { workflow_type: workflowType });
    const workers = await Promise.all(host.workerMetricsUrls().map((url) => scrape(url)));
    return {
      api,
      worker: workers.reduce((sum, samples) => sum + total(samples, 'nuban_workflow_starts_total', { workflow_type: workflowType }), 0),
    };
  }

  it("credits and pays once across both hosts: payments and a duplicate webhook, settlements and a reused Idempotency-Key, the outbox drainers' starts, a tenant's rate limit", async () => {
    // Payments spread over both hosts' APIs; one webhook delivered to both hosts at once.
    const payments = await Promise.all(accounts.map((account) => providerPayment(first.sandboxUrl, account.AccountRef, 10_010)));
    const delivered = await Promise.all(payments.map((payment, index) => deliverTo(hosts[index % 2]!, payment)));
    assert.deepEqual(
      delivered.map((response) => response.status),
      [200, 200, 200, 200],
    );
    const duplicated = await providerPayment(first.sandboxUrl, accounts[0]!.AccountRef, 10_010);
    const twice = await Promise.all(hosts.map((host) => deliverTo(host, duplicated)));
    assert.deepEqual(
      twice.map((response) => response.status),
      [200, 200],
    );
    await eventually(
      async () => {
        const statements = await Promise.all(accounts.map((account) => statementLines(first, tenant.apiKey, account.AccountRef)));
        return statements.every((lines) => lines.length > 0 && lines.every((line) => line.entry.Status === 'confirmed'));
      },
      { what: 'every credit confirmed' },
    );
    const funded = await Promise.all(accounts.map((account) => statementLines(second, tenant.apiKey, account.AccountRef)));
    assert.deepEqual(
      funded.map((lines) => [lines.length, lines.at(-1)!.runningBalance]),
      [
        [2, '20000.00'],
        [1, '10000.00'],
        [1, '10000.00'],
        [1, '10000.00'],
      ],
      'each payment credited once, the one delivered to both hosts too',
    );

    // Settlements through both hosts' APIs, and one Idempotency-Key sent to both at once.
    const settled = await Promise.all(
      accounts.flatMap((account) => hosts.map((host) => settle(host, account.AccountRef, { amount: '1000.00', ...DESTINATION }))),
    );
    assert.ok(
      settled.every((response) => response.status === 202),
      settled.map((response) => `${response.status} ${response.text}`).join('\n'),
    );
    const key = `many-hosts-${randomBytes(4).toString('hex')}`;
    const keyed = await Promise.all(
      hosts.map((host) => settle(host, accounts[1]!.AccountRef, { amount: '1500.00', ...DESTINATION }, { 'Idempotency-Key': key })),
    );
    assert.deepEqual(
      keyed.map((response) => response.status),
      [202, 202],
    );
    assert.equal(keyed[0]!.body.merchantTxRef, keyed[1]!.body.merchantTxRef, 'one settlement for the key, whichever host answered');
    const refs = [...settled, keyed[0]!].map((response) => response.body.merchantTxRef as string);
    await eventually(async () => (await Promise.all(refs.map(transferStatus))).every((status) => status === 'success'), {
      intervalMs: 500,
      what: 'every settlement paid out',
    });
    assert.deepEqual(
      await Promise.all(refs.map(payoutsAtSandbox)),
      refs.map(() => 1),
      'each settlement paid once at the provider',
    );
    const lines = await statementLines(first, tenant.apiKey, accounts[1]!.AccountRef);
    assert.equal(lines.filter((line) => line.entry.Kind === 'settlement').length, 3, 'two settles and one for the key reused');
    assert.equal(lines.at(-1)!.runningBalance, '6500.00');

    // Every settlement's workflow ran once: one run per id, started by an API's kick or a worker's outbox drainer.
    for (const ref of refs) {
      const runs = await eventually(
        async () => {
          const found: string[] = [];
          for await (const execution of temporal.workflow.list({ query: `WorkflowId = '${settlementWorkflowId(ref)}'` }))
            found.push(execution.runId);
          return found.length > 0 ? found : null;
        },
        { what: `the run of ${ref} in visibility` },
      );
      assert.equal(runs.length, 1, `${ref}: one run`);
    }
    const starts = await Promise.all(hosts.map((host) => startsOn(host, 'settlementWorkflow')));
    const byApis = starts.reduce((sum, host) => sum + host.api, 0);
    const byWorkers = starts.reduce((sum, host) => sum + host.worker, 0);
    assert.equal(byApis + byWorkers, refs.length, `each settlement started once (${JSON.stringify(starts)})`);
    assert.ok(byWorkers > 0, `the outbox drainers started what the APIs left (${JSON.stringify(starts)})`);

    // A tenant's rate limit counts its requests on both hosts.
    const limited = await cliTenant(first, 'Many Hosts Rate Limit');
    const lookup = (host: RunningSystem) =>
      call(host.apiUrl, 'POST', '/v1/transfers/lookup', { apiKey: limited.apiKey, body: DESTINATION });
    for (const host of [first, second, first, second]) assert.equal((await lookup(host)).status, 200);
    for (const host of hosts) {
      const refused = await lookup(host);
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.body.code, 'rate_limited');
    }
  });

  it("registers the platform's Schedules once, sweeps a period once, and when one host's worker dies the other finishes its settlements, each paid once", async () => {
    // Both workers ensured the periodic jobs' Schedules at start; Temporal holds one of each for the task queue.
    const expected = [
      convergenceCheckScheduleId(taskQueue),
      dynamicAccountReturnsScheduleId(taskQueue),
      reconciliationScheduleId(taskQueue),
      reservationExpiryScheduleId(taskQueue),
      retentionScheduleId(taskQueue),
    ].sort();
    cleanUp.push(...expected);
    for (const host of hosts)
      assert.ok(
        host.logs.worker.some(
          (line) => line.includes('"msg":"worker running"') && line.includes(`"${convergenceCheckScheduleId(taskQueue)}"`),
        ),
        'each host ensured the Schedules',
      );
    const listed = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const schedule of temporal.schedule.list())
          if (schedule.scheduleId.endsWith(`:${taskQueue}`)) ids.push(schedule.scheduleId);
        return ids.length >= expected.length ? ids.sort() : null;
      },
      { what: "the task queue's Schedules listed" },
    );
    assert.deepEqual(listed, expected);

    // A balance sweep set through one host; its Schedule's runs (on whichever worker) pay the period once.
    const sweeper = await provision(second, tenant.apiKey);
    cleanUp.push(balanceSweepScheduleId(sweeper.ID));
    assert.equal((await deliverTo(second, await providerPayment(first.sandboxUrl, sweeper.AccountRef, 10_010))).status, 200);
    await eventually(async () => (await statementLines(first, tenant.apiKey, sweeper.AccountRef))[0]?.entry.Status === 'confirmed', {
      what: "the sweeping account's credit confirmed",
    });
    const beneficiary = await call(first.apiUrl, 'POST', '/v1/beneficiaries', {
      apiKey: tenant.apiKey,
      body: { bankCode: DESTINATION.bankCode, accountNumber: `20${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}01` },
    });
    assert.equal(beneficiary.status, 201, beneficiary.text);
    const sweep = await call(second.apiUrl, 'PUT', `/v1/accounts/${sweeper.AccountRef}/sweep`, {
      apiKey: tenant.apiKey,
      body: { beneficiaryId: beneficiary.body.id, schedule: { whenAbove: '1000' } },
    });
    assert.equal(sweep.status, 200, sweep.text);
    const handle = temporal.schedule.getHandle(balanceSweepScheduleId(sweeper.ID));
    await eventually(
      () =>
        handle.describe().catch((error: unknown) => {
          if (error instanceof ScheduleNotFoundError) return null;
          throw error;
        }),
      { what: "the sweep's Schedule" },
    );
    // Runs one after another (a run's id is the Schedule's and the second it was due: runs at once could share one).
    const results: Array<Record<string, unknown>> = [];
    for (let run = 1; run <= 3; run += 1) {
      const before = (await handle.describe()).info.recentActions.length;
      await handle.trigger();
      const action = await eventually(
        async () => {
          const actions = (await handle.describe()).info.recentActions;
          return actions.length > before ? actions.at(-1) : null;
        },
        { what: `triggered run ${run}` },
      );
      results.push(
        await temporal.workflow.getHandle(action.action.workflow.workflowId, action.action.workflow.firstExecutionRunId).result(),
      );
    }
    const swept = new Set(results.filter((result) => result.outcome === 'settled').map((result) => result.merchantTxRef as string));
    assert.equal(swept.size, 1, `one settlement for the period: ${JSON.stringify(results)}`);
    const [sweepRef] = [...swept];
    await eventually(async () => (await transferStatus(sweepRef!)) === 'success', { what: 'the sweep paid out' });
    assert.equal(await payoutsAtSandbox(sweepRef!), 1);
    const sweptLines = await statementLines(first, tenant.apiKey, sweeper.AccountRef);
    assert.equal(sweptLines.filter((line) => line.entry.Kind === 'settlement').length, 1);
    const listedSweeps: string[] = [];
    for await (const schedule of temporal.schedule.list())
      if (schedule.scheduleId === balanceSweepScheduleId(sweeper.ID)) listedSweeps.push(schedule.scheduleId);
    assert.equal(listedSweeps.length, 1);

    // Settlements the provider keeps PROCESSING until the test settles them, started through both hosts.
    const slow = magicAccountNumber('stuckProcessing', '000000');
    const started = await Promise.all(
      accounts.flatMap((account) =>
        hosts.map((host) => settle(host, account.AccountRef, { amount: '500.00', bankCode: '044', accountNumber: slow })),
      ),
    );
    assert.ok(started.every((response) => response.status === 202));
    const refs = started.map((response) => response.body.merchantTxRef as string);
    await eventually(
      async () =>
        (
          await Promise.all(
            refs.map(async (ref) => (await call(first.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body.submissions.length),
          )
        ).every((submissions) => submissions === 1),
      { intervalMs: 500, what: 'every settlement submitted' },
    );
    // The second host's worker is running some of them when it is killed.
    const secondWorker = `${second.pid('worker')}@`;
    const touchedBySecond = await eventually(
      async () => {
        const touched: string[] = [];
        for (const ref of refs) {
          const history = await temporal.workflow.getHandle(settlementWorkflowId(ref)).fetchHistory();
          if ([...identitiesIn(history)].some((identity) => identity.startsWith(secondWorker))) touched.push(ref);
        }
        return touched.length > 0 ? touched : null;
      },
      { intervalMs: 500, what: "the second host's worker running a settlement" },
    );
    await second.kill('worker');
    for (const ref of refs) assert.equal((await call(first.sandboxUrl, 'POST', `/sandbox/transfers/${ref}-1/settle`)).status, 200);
    await eventually(async () => (await Promise.all(refs.map(transferStatus))).every((status) => status === 'success'), {
      intervalMs: 500,
      what: "every settlement finished by the first host's worker",
    });
    assert.deepEqual(
      await Promise.all(refs.map(payoutsAtSandbox)),
      refs.map(() => 1),
      'each settlement paid once at the provider',
    );
    const firstWorker = `${first.pid('worker')}@`;
    for (const ref of touchedBySecond) {
      const identities = [...identitiesIn(await temporal.workflow.getHandle(settlementWorkflowId(ref)).fetchHistory())];
      assert.ok(
        identities.some((identity) => identity.startsWith(firstWorker)),
        `${ref}: taken over by the first host's worker (${identities.join(', ')})`,
      );
    }
    const balances = await Promise.all(accounts.map((account) => statementLines(first, tenant.apiKey, account.AccountRef)));
    assert.deepEqual(
      balances.map((lines) => lines.at(-1)!.runningBalance),
      ['17000.00', '5500.00', '7000.00', '7000.00'],
    );
  });
});
