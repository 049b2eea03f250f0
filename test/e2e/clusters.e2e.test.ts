import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import knex, { type Knex } from 'knex';
import type { Client } from '@temporalio/client';
import { createTenantDirectory, type TenantDirectory } from '../../src/clusters/tenant-directory';
import { convergenceCheckScheduleId } from '../../src/contracts/convergence-check.contract';
import { dynamicAccountReturnsScheduleId } from '../../src/contracts/dynamic-account-returns.contract';
import { reconciliationScheduleId } from '../../src/contracts/reconciliation.contract';
import { reservationExpiryScheduleId } from '../../src/contracts/reservation-expiry.contract';
import { retentionScheduleId } from '../../src/contracts/retention.contract';
import { createLogger } from '../../src/logger';
import { createTemporalClient } from '../../src/temporal/client';
import { call, eventually, type HttpResponse } from '../helpers/http';
import { startSystem, type RunningSystem } from '../helpers/processes';
import { magicAccountNumber } from '../helpers/sandbox-values';
import { deleteSchedulesAndClose } from '../helpers/schedules';
import { scratchDatabase } from '../helpers/scratch-database';
import { E2E_TIMINGS } from './system';
import { provision, statementLines } from './tenant';

const DESTINATION = { bankCode: '044', accountNumber: '0123456789' };

interface CellTenant {
  tenantId: string;
  apiKey: string;
  cluster: string;
  account: { AccountRef: string; ID: string };
}

const scheduleIdsOf = (taskQueue: string): string[] =>
  [
    convergenceCheckScheduleId(taskQueue),
    dynamicAccountReturnsScheduleId(taskQueue),
    reconciliationScheduleId(taskQueue),
    reservationExpiryScheduleId(taskQueue),
    retentionScheduleId(taskQueue),
  ].sort();

/**
 * Two Postgres clusters, each a cell (its database, its task queue), behind one API and one worker, as
 * DATABASE_CLUSTERS runs them: tenants placed by `tenant:create`, every request and every activity on its tenant's
 * cluster, and nothing of one tenant on the other cluster. The second cluster's database is made on the server
 * TEST_SECOND_CLUSTER_ADMIN_URL names (a second local Postgres server); without one, both databases are on the
 * run's server, which tests the same routing.
 */
describe('e2e: tenants on two Postgres clusters (a cell each)', () => {
  let sys: RunningSystem;
  let temporal: Client;
  let databases: Array<Awaited<ReturnType<typeof scratchDatabase>>> = [];
  let pools: Record<'a' | 'b', Knex>;
  let directory: TenantDirectory;
  let tenants: CellTenant[];
  const taskQueue = `e2e-cells-${randomBytes(4).toString('hex')}`;
  const taskQueues = { a: taskQueue, b: `${taskQueue}.b` };

  before(async () => {
    const secondServer = process.env.TEST_SECOND_CLUSTER_ADMIN_URL;
    const a = await scratchDatabase('cells_a', { control: true });
    const b = await scratchDatabase('cells_b', secondServer ? { adminUrl: secondServer } : {});
    databases = [a, b];
    pools = { a: knex({ client: 'pg', connection: a.url }), b: knex({ client: 'pg', connection: b.url }) };
    directory = createTenantDirectory({
      db: knex({ client: 'pg', connection: a.url }),
      clusters: ['a', 'b'],
      logger: createLogger('warn', 'test'),
    });
    sys = await startSystem({
      ...E2E_TIMINGS,
      DATABASE_URL: a.url,
      DATABASE_CLUSTERS: `a=${a.url},b=${b.url}`,
      TEMPORAL_TASK_QUEUE: taskQueue,
    });
    temporal = createTemporalClient({ TEMPORAL_ADDRESS: sys.env.TEMPORAL_ADDRESS!, TEMPORAL_NAMESPACE: 'default' });
    // One after another: each goes to the cluster holding fewest tenants at that moment.
    tenants = [];
    for (const index of [0, 1, 2, 3]) {
      const created = JSON.parse(await sys.cli('tenant:create', '--name', `Cell Tenant ${index}`, '--json')) as Omit<CellTenant, 'account'>;
      tenants.push({ ...created, account: await provision(sys, created.apiKey) });
    }
  });

  after(async () => {
    await sys?.stop();
    if (temporal) await deleteSchedulesAndClose(temporal, [...scheduleIdsOf(taskQueues.a), ...scheduleIdsOf(taskQueues.b)]);
    await directory?.close();
    await Promise.all(Object.values(pools ?? {}).map((pool) => pool.destroy()));
    for (const database of databases) await database.drop();
  });

  const on = (cluster: 'a' | 'b') => tenants.filter((tenant) => tenant.cluster === cluster).map((tenant) => tenant.tenantId);

  /** The tenants whose rows `table` holds on the cluster. */
  async function tenantsIn(cluster: 'a' | 'b', table: string): Promise<string[]> {
    const rows = (await pools[cluster](table).distinct('tenant_id')) as Array<{ tenant_id: string }>;
    return rows.map((row) => row.tenant_id).sort();
  }

  async function deliverPayment(accountRef: string, amount: number): Promise<HttpResponse> {
    const sent = await call(sys.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef, amount, fee: 10, deliver: false } });
    assert.equal(sent.status, 200, sent.text);
    return call(sys.apiUrl, 'POST', '/webhooks/provider', {
      rawBody: JSON.stringify(sent.body.payload),
      headers: {
        'provider-signature': sent.body.headers['provider-signature'],
        'provider-timestamp': sent.body.headers['provider-timestamp'],
      },
    });
  }

  it('places each new tenant on the cluster holding fewest, and writes its rows there only', async () => {
    assert.deepEqual(
      tenants.map((tenant) => tenant.cluster),
      ['a', 'b', 'a', 'b'],
    );
    const placements = (await pools.a('tenant_placements').select('tenant_id', 'cluster').orderBy('cluster')) as Array<{
      tenant_id: string;
      cluster: string;
    }>;
    assert.deepEqual(
      placements.map((row) => `${row.tenant_id}:${row.cluster}`).sort(),
      tenants.map((tenant) => `${tenant.tenantId}:${tenant.cluster}`).sort(),
    );
    const reserved = (await pools.a('tenant_ref_prefixes').select('tenant_id', 'ref_prefix')) as Array<{
      tenant_id: string;
      ref_prefix: string;
    }>;
    const prefixes = await Promise.all(
      tenants.map(async (tenant) => {
        const row = (await pools[tenant.cluster as 'a' | 'b']('tenants').where({ id: tenant.tenantId }).first('ref_prefix')) as {
          ref_prefix: string;
        };
        return `${tenant.tenantId}:${row.ref_prefix}`;
      }),
    );
    assert.deepEqual(
      reserved.map((row) => `${row.tenant_id}:${row.ref_prefix}`).sort(),
      prefixes.sort(),
      'each prefix reserved in the directory',
    );
    for (const cluster of ['a', 'b'] as const) {
      const rows = (await pools[cluster]('tenants').select('id')) as Array<{ id: string }>;
      assert.deepEqual(rows.map((row) => row.id).sort(), on(cluster).sort(), `cluster ${cluster} holds its tenants only`);
      assert.deepEqual(await tenantsIn(cluster, 'virtual_accounts'), on(cluster).sort());
    }
  });

  it('credits signed webhooks and pays each settlement once, each on its tenant’s cluster', async () => {
    const delivered = await Promise.all(tenants.map((tenant) => deliverPayment(tenant.account.AccountRef, 10_010)));
    assert.deepEqual(
      delivered.map((response) => response.status),
      [200, 200, 200, 200],
    );
    await eventually(
      async () => {
        const statements = await Promise.all(tenants.map((tenant) => statementLines(sys, tenant.apiKey, tenant.account.AccountRef)));
        return statements.every((lines) => lines.length === 1 && lines[0]!.entry.Status === 'confirmed');
      },
      { what: 'every credit confirmed (the signature checked over the bytes the provider sent)' },
    );
    const settled = await Promise.all(
      tenants.map((tenant) =>
        call(sys.apiUrl, 'POST', `/v1/accounts/${tenant.account.AccountRef}/settle`, {
          apiKey: tenant.apiKey,
          body: { amount: '1000.00', ...DESTINATION },
        }),
      ),
    );
    assert.ok(
      settled.every((response) => response.status === 202),
      settled.map((response) => `${response.status} ${response.text}`).join('\n'),
    );
    const refs = settled.map((response) => response.body.merchantTxRef as string);
    await eventually(
      async () =>
        (
          await Promise.all(
            tenants.map(
              async (tenant, index) =>
                (await call(sys.apiUrl, 'GET', `/v1/transfers/${refs[index]}`, { apiKey: tenant.apiKey })).body.status as string,
            ),
          )
        ).every((status) => status === 'success'),
      { intervalMs: 500, what: 'every settlement paid out' },
    );
    const payouts = await Promise.all(
      refs.map(async (ref) => (await call(sys.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body.payouts),
    );
    assert.deepEqual(payouts, [1, 1, 1, 1], 'each settlement paid once at the provider');
    for (const tenant of tenants) {
      const lines = await statementLines(sys, tenant.apiKey, tenant.account.AccountRef);
      assert.equal(lines.at(-1)!.runningBalance, '9000.00');
    }
    for (const cluster of ['a', 'b'] as const)
      for (const table of ['ledger_entries', 'inbound_events', 'settlements'])
        assert.deepEqual(await tenantsIn(cluster, table), on(cluster).sort(), `${table} on cluster ${cluster}: its tenants only`);
  });

  it('shows each tenant only its own accounts, statements, settlements and books, by key and by dashboard session', async () => {
    const [first, second] = tenants as [CellTenant, CellTenant];
    const otherCluster = await call(sys.apiUrl, 'GET', `/v1/accounts/${second.account.AccountRef}`, { apiKey: first.apiKey });
    assert.equal(otherCluster.status, 404, otherCluster.text);
    const otherStatement = await call(sys.apiUrl, 'GET', `/v1/accounts/${second.account.AccountRef}/statement`, { apiKey: first.apiKey });
    assert.equal(otherStatement.status, 404, otherStatement.text);
    const sameCluster = await call(sys.apiUrl, 'GET', `/v1/accounts/${tenants[2]!.account.AccountRef}`, { apiKey: first.apiKey });
    assert.equal(sameCluster.status, 404, sameCluster.text);
    for (const tenant of tenants) {
      const listed = await call(sys.apiUrl, 'GET', '/v1/accounts', { apiKey: tenant.apiKey });
      assert.equal(listed.status, 200, listed.text);
      for (const other of tenants)
        assert.equal(listed.text.includes(other.account.AccountRef), other === tenant, `${tenant.cluster}: lists its own account only`);
      const books = await call(sys.apiUrl, 'GET', '/v1/ledger/balances', { apiKey: tenant.apiKey });
      assert.equal(books.status, 200, books.text);
      const me = await call(sys.apiUrl, 'GET', '/v1/me', { apiKey: tenant.apiKey });
      assert.equal(me.body.tenantId, tenant.tenantId);
    }
    const unknown = await call(sys.apiUrl, 'GET', '/v1/me', { apiKey: `${first.apiKey}x` });
    assert.equal(unknown.status, 401, unknown.text);

    // A dashboard user of a tenant on the second cluster signs in through the front and sees its own tenant.
    const email = `cells-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'a long cluster password';
    await sys.cliWithStdin(password, 'user:create', '--tenant', second.tenantId, '--email', email, '--json');
    const login = await call(sys.apiUrl, 'POST', '/auth/login', { body: { email, password } });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.tenantId, second.tenantId);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const session = await call(sys.apiUrl, 'GET', '/auth/session', { cookie });
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.tenant.id, second.tenantId);
  });

  it("runs the platform's Schedules once per cell, each on its cell's task queue", async () => {
    for (const cluster of ['a', 'b'] as const) {
      const queue = taskQueues[cluster];
      const listed = await eventually(
        async () => {
          const ids: string[] = [];
          for await (const schedule of temporal.schedule.list())
            if (schedule.scheduleId.endsWith(`:${queue}`)) ids.push(schedule.scheduleId);
          return ids.length >= 5 ? ids.sort() : null;
        },
        { what: `the Schedules of cluster ${cluster}` },
      );
      assert.deepEqual(listed, scheduleIdsOf(queue));
      const described = await temporal.schedule.getHandle(convergenceCheckScheduleId(queue)).describe();
      assert.equal(described.action.type === 'startWorkflow' ? described.action.taskQueue : undefined, queue);
    }
  });

  it('answers 503 with Retry-After for a tenant being moved, its provider webhooks too, and serves it again once the move ends', async () => {
    const moving = tenants[1]!;
    const staying = tenants[0]!;
    await directory.beginMove(moving.tenantId);
    const refused = await eventually(
      async () => {
        const response = await call(sys.apiUrl, 'GET', '/v1/me', { apiKey: moving.apiKey });
        return response.status === 503 ? response : null;
      },
      { what: 'the moving tenant refused' },
    );
    assert.equal(refused.body.code, 'tenant_moving');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    const webhook = await deliverPayment(moving.account.AccountRef, 5_010);
    assert.equal(webhook.status, 503, 'the provider retries the webhook later');
    assert.equal((await call(sys.apiUrl, 'GET', '/v1/me', { apiKey: staying.apiKey })).status, 200);
    await directory.finishMove(moving.tenantId, 'b');
    await eventually(async () => (await call(sys.apiUrl, 'GET', '/v1/me', { apiKey: moving.apiKey })).status === 200, {
      what: 'the moved tenant served again',
    });
  });

  it('refuses with 503 a webhook whose account prefix tenants on both clusters hold, and routes it to neither', async () => {
    // Two tenants from before the directory held prefixes, one on each cluster, with the same prefix.
    const prefix = randomBytes(3).toString('hex');
    for (const cluster of ['a', 'b'] as const)
      await pools[cluster]('tenants').insert({ id: randomUUID(), name: `Old tenant on ${cluster}`, ref_prefix: prefix });
    const response = await call(sys.apiUrl, 'POST', '/webhooks/provider', {
      rawBody: JSON.stringify({
        event_type: 'payment_success',
        data: { transaction: { aliasAccountReference: `va_${prefix}_000000000001` } },
      }),
    });
    assert.equal(response.status, 503, response.text);
    assert.equal(response.body.code, 'tenant_ambiguous', 'answered by the front, handed to neither cluster');
  });

  it('moves a tenant with settlements in flight to the other cluster with tenant:move: each payout once, the tenant served from there', async function () {
    // The scheduled payout's time, 30 s after it is set, is part of it.
    this.timeout(240_000);
    const moving = tenants[2]!;
    const staying = tenants[0]!;
    assert.equal(moving.cluster, 'a');
    await assert.rejects(sys.cli('tenant:move', '--tenant', staying.tenantId, '--to', 'a'), /exited 2: tenant \S+ is already on cluster a/);
    await assert.rejects(sys.cli('tenant:move', '--tenant', staying.tenantId, '--to', 'c'), /exited 2: --to: no cluster named "c"/);
    const nobody = '00000000-0000-7000-8000-000000000000';
    await assert.rejects(sys.cli('tenant:move', '--tenant', nobody, '--to', 'b'), /exited 2: no tenant \S+ on cluster a/);
    const stayingBefore = await statementLines(sys, staying.apiKey, staying.account.AccountRef);

    const settle = async (body: Record<string, string>): Promise<string> => {
      const response = await call(sys.apiUrl, 'POST', `/v1/accounts/${moving.account.AccountRef}/settle`, { apiKey: moving.apiKey, body });
      assert.equal(response.status, 202, response.text);
      return response.body.merchantTxRef as string;
    };
    const transferStatus = async (ref: string) =>
      (await call(sys.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: moving.apiKey })).body.status as string;
    const payoutsAtSandbox = async (ref: string) => (await call(sys.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body.payouts as number;
    // One payout the provider holds PROCESSING (until the test settles it), one scheduled for a moment after the move.
    const processing = await settle({ amount: '2000.00', bankCode: '044', accountNumber: magicAccountNumber('stuckProcessing') });
    await eventually(
      async () => (await call(sys.sandboxUrl, 'GET', `/sandbox/transfers/${processing}`)).body.submissions?.[0]?.status === 'PROCESSING',
      { intervalMs: 300, what: 'the payout submitted and held PROCESSING at the provider' },
    );
    const scheduled = await settle({ amount: '1500.00', ...DESTINATION, scheduledFor: new Date(Date.now() + 30_000).toISOString() });

    const moved = JSON.parse(await sys.cli('tenant:move', '--tenant', moving.tenantId, '--to', 'b', '--json')) as {
      outcome: string;
      pausedMs: number;
      copied: Record<string, number>;
      stoppedWorkflows: string[];
      restartedWorkflows: number;
    };
    assert.equal(moved.outcome, 'moved');
    assert.ok(moved.pausedMs > 0 && moved.copied.settlements! >= 2, JSON.stringify(moved));
    for (const workflowId of [`settlement:${processing}`, `scheduled-payout:${scheduled}`])
      assert.ok(moved.stoppedWorkflows.includes(workflowId), `${workflowId} stopped on the source: ${moved.stoppedWorkflows.join(', ')}`);
    assert.ok(moved.restartedWorkflows >= 2, 'both started again on the target');
    assert.deepEqual(
      ((await pools.a('tenant_placements').where({ tenant_id: moving.tenantId }).first()) as { cluster: string }).cluster,
      'b',
    );

    // Run again (as after a crash between the switch and the restart), the move only starts the workflows on the target.
    const again = JSON.parse(await sys.cli('tenant:move', '--tenant', moving.tenantId, '--to', 'b', '--json')) as typeof moved;
    assert.equal(again.outcome, 'moved');
    assert.equal(again.copied, null, 'nothing copied again');
    assert.deepEqual(again.stoppedWorkflows, []);

    // The provider completes the payout the source submitted: the target's run, following the same reference, confirms it.
    assert.equal((await call(sys.sandboxUrl, 'POST', `/sandbox/transfers/${processing}-1/settle`)).status, 200);
    await eventually(async () => (await transferStatus(processing)) === 'success' && (await transferStatus(scheduled)) === 'success', {
      intervalMs: 500,
      what: 'both payouts paid, on the target',
    });
    assert.deepEqual([await payoutsAtSandbox(processing), await payoutsAtSandbox(scheduled)], [1, 1], 'each payout paid once');
    const statusOn = async (cluster: 'a' | 'b', ref: string) =>
      ((await pools[cluster]('settlements').where({ merchant_tx_ref: ref }).first('status')) as { status: string }).status;
    assert.equal(await statusOn('b', processing), 'success');
    assert.equal(await statusOn('a', processing), 'processing', 'the source keeps its fenced copy as it was at the move');

    // The tenant's statement and balance are the target's; a new payment credits there only.
    const entriesOnA = async () => Number((await pools.a('ledger_entries').where({ tenant_id: moving.tenantId }).count({ n: '*' }))[0]!.n);
    const entriesLeftOnA = await entriesOnA();
    assert.equal((await deliverPayment(moving.account.AccountRef, 10_010)).status, 200);
    const lines = await eventually(
      async () => {
        const found = await statementLines(sys, moving.apiKey, moving.account.AccountRef);
        return found.at(-1)?.runningBalance === '15500.00' && found.every((line) => line.entry.Status === 'confirmed') ? found : null;
      },
      { what: 'the new payment credited and confirmed on the target' },
    );
    assert.equal(lines.filter((line) => line.entry.Status === 'confirmed').length, lines.length);
    const balance = await call(sys.apiUrl, 'GET', `/v1/accounts/${moving.account.AccountRef}/balance`, { apiKey: moving.apiKey });
    assert.equal(balance.body.ledgerBalance, '15500.00', balance.text);
    assert.equal(await entriesOnA(), entriesLeftOnA, 'nothing more written on the source');
    assert.deepEqual(await tenantsIn('b', 'ledger_entries'), [...on('b'), moving.tenantId].sort());

    for (const cluster of ['a', 'b']) await sys.cli('ledger:verify', '--cluster', cluster);
    assert.deepEqual(await statementLines(sys, staying.apiKey, staying.account.AccountRef), stayingBefore, 'the other tenant untouched');
    assert.equal((await call(sys.apiUrl, 'GET', '/v1/me', { apiKey: staying.apiKey })).status, 200);
  });
});
