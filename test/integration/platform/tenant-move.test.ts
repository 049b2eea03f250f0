import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { createJobs } from '../../../src/contracts/jobs';
import { settlementWorkflowId } from '../../../src/contracts/settlement.contract';
import type { Db } from '../../../src/db';
import { createLogger } from '../../../src/logger';
import { settlementRestartPlan } from '../../../src/settlements/settlement-restarts';
import { tenantFilter } from '../../../src/tenant-moves/tenant-copy';
import type { TenantDirectoryPart, TenantWorkflowsPart } from '../../../src/tenant-moves/move-parts';
import { moveTenant, type MoveSide, type TenantMoveResult } from '../../../src/tenant-moves/tenant-move';
import { PLATFORM_TABLES, tenantTables } from '../../../src/tenant-moves/tenant-tables';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { magicAccountNumber } from '../../helpers/sandbox-values';
import { scratchDatabase } from '../../helpers/scratch-database';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/** `ledger:verify --json` on the database at `url`: its exit code and its problems. */
async function ledgerVerify(url: string): Promise<{ code: number; problems: unknown[] }> {
  const run = promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), 'ledger:verify', '--json'], {
    env: { ...process.env, DATABASE_URL: url },
  });
  try {
    return { code: 0, problems: (JSON.parse((await run).stdout) as { problems: unknown[] }).problems };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    assert.ok(failed.stdout, `ledger:verify exited ${failed.code} without a report: ${failed.stderr}`);
    return { code: failed.code, problems: (JSON.parse(failed.stdout) as { problems: unknown[] }).problems };
  }
}

/** The directory as the clusters' runtime keeps it, in memory: each tenant's cluster and the tenants paused. */
function memoryDirectory(homes: Map<string, string>): TenantDirectoryPart & { paused: Set<string> } {
  const paused = new Set<string>();
  return {
    paused,
    async clusterOf(tenantId) {
      return homes.get(tenantId) ?? 'source';
    },
    async beginMove(tenantId) {
      paused.add(tenantId);
    },
    async finishMove(tenantId, cluster) {
      homes.set(tenantId, cluster);
      paused.delete(tenantId);
    },
  };
}

/** What a stack's convergence check does with settlements whose runs closed: resumes those still open there. */
const settlementRestartsOf = (stack: Stack) =>
  settlementRestartPlan({
    db: stack.infra.db,
    client: stack.infra.temporal,
    jobs: createJobs(stack.config),
    starter: stack.services.starter,
    logger: createLogger('silent', 'test'),
    raiseFinding: async () => false,
  });

/** A stack's settlement workflows for a tenant: its open settlements' runs terminated, or resumed from the database. */
function settlementWorkflowsOf(stack: Stack): TenantWorkflowsPart {
  const openRefs = async (tenantId: string): Promise<string[]> =>
    (
      await stack.infra
        .db('settlements')
        .where({ tenant_id: tenantId })
        .whereIn('status', ['pending', 'processing'])
        .select('merchant_tx_ref')
    ).map((row: { merchant_tx_ref: string }) => row.merchant_tx_ref);
  return {
    async stopRunning(tenantId) {
      const stopped: string[] = [];
      for (const ref of await openRefs(tenantId)) {
        const handle = stack.infra.temporal.workflow.getHandle(settlementWorkflowId(ref));
        const running = await handle.describe().then(
          (described) => described.status.name === 'RUNNING',
          () => false,
        );
        if (!running) continue;
        await handle.terminate('the tenant moves to another cluster');
        stopped.push(settlementWorkflowId(ref));
      }
      return stopped;
    },
    async restartUnfinished(tenantId) {
      return (await settlementRestartsOf(stack).resume(await openRefs(tenantId))).restarted;
    },
  };
}

/** Rows of the tenant in a database, per table the move copies. */
async function tenantRowCounts(db: Db, tenantId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await tenantTables(db)) {
    counts[table.name] = Number(
      (await db.raw(`SELECT count(*) AS n FROM "${table.name}" t WHERE ${tenantFilter(table, tenantId)}`)).rows[0].n,
    );
  }
  return counts;
}

const accountMoney = (db: Db, tenantId: string) =>
  db('virtual_accounts')
    .where({ tenant_id: tenantId })
    .orderBy('id')
    .select('account_ref', 'ledger_balance', 'held_balance', 'pending_credits', 'total_credits', 'total_debits', 'last_seq');

// A tenant with money and a payout in flight moves from one database (cluster) to another: copied from one snapshot into
// one transaction, verified, switched; a crash half-way leaves the target without it and a second run completes the move;
// the source refuses the tenant's late writes; the payout in flight is finished on the target and paid once.
describe('tenant:move: a tenant copied to another cluster, verified, switched', function () {
  this.timeout(120_000);
  let sourceDb: { url: string; drop(): Promise<void> };
  let targetDb: { url: string; drop(): Promise<void> };
  let source: Stack;
  let target: Stack;
  let moving: TestTenant;
  let staying: TestTenant;
  let broken: TestTenant;
  let payer: ProvisionedAccount;
  let payee: ProvisionedAccount;
  let settlementRef: string;
  let queuedRef: string;
  let childRun: string;
  let targetAtSwitch: { counts: Record<string, number>; money: unknown[] };
  const homes = new Map<string, string>();
  const directory = memoryDirectory(homes);
  const logger = createLogger('silent', 'test');
  let sourceSide: MoveSide;
  let targetSide: MoveSide;

  before(async () => {
    [sourceDb, targetDb] = [await scratchDatabase('move_source'), await scratchDatabase('move_target')];
    source = await startStack({ DATABASE_URL: sourceDb.url }, { worker: false });
    // One provider behind both clusters, as in production: the target's workers look up what the source submitted. The
    // target's outbox drainer passes once, at its start: the tenant's workflows there are started by the move's restart
    // alone, after the switch, so the target's rows at the switch are the copy's.
    target = await startStack(
      { DATABASE_URL: targetDb.url, PROVIDER_BASE_URL: source.sandboxUrl, SETTLEMENT_POLL_INTERVAL: '300ms', OUTBOX_DRAIN_INTERVAL: '1h' },
      { worker: true },
    );
    sourceSide = { cluster: 'source', db: source.infra.db, workflows: settlementWorkflowsOf(source) };
    targetSide = { cluster: 'target', db: target.infra.db, workflows: settlementWorkflowsOf(target) };

    [moving, staying, broken] = [
      await createTenant(source, 'Moving'),
      await createTenant(source, 'Staying'),
      await createTenant(source, 'Broken'),
    ];
    const customer = `cust-${randomUUID()}`;
    payer = await provisionAccount(source, moving.apiKey, { externalRef: customer });
    payee = await provisionAccount(source, moving.apiKey);
    await fundAccount(source, payer.ID, 900_000n);
    await fundAccount(source, payee.ID, 12_345n, 'provisional');
    // A payment through the webhook (an inbound event, a provisional credit, its events and queued confirmation).
    assert.equal((await sendProviderEvent(source, paymentEvent({ accountRef: payee.AccountRef, amount: 5025, fee: 25 }))).status, 200);
    const transfer = await call(source.apiUrl, 'POST', `/v1/accounts/${payer.AccountRef}/transfers`, {
      apiKey: moving.apiKey,
      body: { toAccountRef: payee.AccountRef, amount: '150.00' },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    assert.equal(transfer.status, 201, transfer.text);
    const lien = await call(source.apiUrl, 'POST', `/v1/accounts/${payer.AccountRef}/liens`, {
      apiKey: moving.apiKey,
      body: { amount: '75.00', reason: 'dispute' },
    });
    assert.equal(lien.status, 201, lien.text);
    // A payout in flight: its workflow started on the source (no worker there), its first attempt submitted to the
    // provider, which keeps it PROCESSING: the debit is provisional, the settlement processing.
    const settle = await call(source.apiUrl, 'POST', `/v1/accounts/${payer.AccountRef}/settle`, {
      apiKey: moving.apiKey,
      body: { amount: '400.00', bankCode: '058', accountNumber: magicAccountNumber('stuckProcessing') },
    });
    assert.equal(settle.status, 202, settle.text);
    settlementRef = settle.body.merchantTxRef as string;
    const settlementId = (await source.infra.db('settlements').where({ merchant_tx_ref: settlementRef }).first('id')).id as string;
    assert.equal((await source.services.settlementExecution.checkDestination(settlementId)).kind, 'ok');
    assert.equal((await source.services.settlementExecution.submitAttempt(settlementId, 1)).kind, 'accepted');
    // A second payout whose workflow's start is still waiting in the outbox, as when the API's own start did not get through.
    const queued = await call(source.apiUrl, 'POST', `/v1/accounts/${payer.AccountRef}/settle`, {
      apiKey: moving.apiKey,
      body: { amount: '50.00', bankCode: '058', accountNumber: '0123456789' },
    });
    assert.equal(queued.status, 202, queued.text);
    queuedRef = queued.body.merchantTxRef as string;
    const queuedStart = () => source.infra.db('workflow_outbox').where({ workflow_id: settlementWorkflowId(queuedRef) });
    await eventually(async () => (await queuedStart().whereNotNull('started_at').first()) !== undefined, {
      what: 'the API to mark its start made',
    });
    await queuedStart().update({ started_at: null });

    // A platform reconciliation run of the source's, with the tenant's child run under it.
    const platformRun = randomUUID();
    childRun = randomUUID();
    const window = { window_from: new Date(Date.now() - 3_600_000), window_to: new Date(), status: 'succeeded' };
    await source.infra.db('reconciliation_runs').insert({ id: platformRun, tenant_id: null, trigger: 'schedule', ...window });
    await source.infra
      .db('reconciliation_runs')
      .insert({ id: childRun, parent_run_id: platformRun, tenant_id: moving.tenantId, trigger: 'schedule', ...window });

    const other = await provisionAccount(source, staying.apiKey);
    await fundAccount(source, other.ID, 50_000n);
    assert.equal((await sendProviderEvent(source, paymentEvent({ accountRef: other.AccountRef }))).status, 200);

    // A tenant whose ledger disagrees with itself: its stored held balance names no reservation.
    const brokenAccount = await provisionAccount(source, broken.apiKey);
    await fundAccount(source, brokenAccount.ID, 10_000n);
    await source.infra.db('virtual_accounts').where({ id: brokenAccount.ID }).increment('held_balance', 1);
  });
  after(async () => {
    await target?.close();
    await source?.close();
    await targetDb?.drop();
    await sourceDb?.drop();
  });

  it('finds every table of a tenant in the catalog, parents first, and copies none of the platform tables', async () => {
    const tables = (await tenantTables(source.infra.db)).map((table) => table.name);
    for (const name of Object.keys(PLATFORM_TABLES)) assert.ok(!tables.includes(name), `${name} is the platform's`);
    for (const name of ['settlement_attempts', 'settlement_status_history', 'sessions', 'webhook_attempts', 'ledger_system_posting_rows'])
      assert.ok(tables.includes(name), `${name} is a tenant's`);
    assert.ok(tables.indexOf('customers') > tables.indexOf('tenants'));
    assert.ok(tables.indexOf('virtual_accounts') > tables.indexOf('customers'));
    assert.ok(tables.indexOf('settlements') > tables.indexOf('ledger_entries'));
    assert.ok(tables.indexOf('settlement_attempts') > tables.indexOf('settlements'));
  });

  it('a copy that fails half-way leaves the target without a row of the tenant; run again, the move completes', async () => {
    const crashed = moveTenant(moving.tenantId, {
      directory,
      source: sourceSide,
      target: targetSide,
      logger,
      onTableCopied: async (table) => {
        if (table === 'settlements') throw new Error('the move process died');
      },
    });
    await assert.rejects(crashed, /the move process died/);
    const afterCrash = await tenantRowCounts(target.infra.db, moving.tenantId);
    assert.deepEqual(
      Object.entries(afterCrash).filter(([, rows]) => rows > 0),
      [],
      'nothing of the tenant reached the target',
    );
    assert.ok(directory.paused.has(moving.tenantId), 'still paused: the move is unfinished');
    // Meanwhile the source's convergence check, finding the payout's run terminated, resumes nothing: it moved out.
    assert.equal((await settlementRestartsOf(source).resume([settlementRef])).restarted, 0);

    // The target as the switch finds it, before the workflows restarted there change it.
    const switching: TenantDirectoryPart = {
      ...directory,
      async finishMove(tenantId, cluster) {
        targetAtSwitch = {
          counts: await tenantRowCounts(target.infra.db, tenantId),
          money: await accountMoney(target.infra.db, tenantId),
        };
        await directory.finishMove(tenantId, cluster);
      },
    };
    const moved: TenantMoveResult = await moveTenant(moving.tenantId, {
      directory: switching,
      source: sourceSide,
      target: targetSide,
      logger,
    });
    assert.equal(moved.outcome, 'moved', JSON.stringify(moved));
    assert.ok(moved.outcome === 'moved' && moved.copied!.ledger_entries! > 0);
    assert.equal(homes.get(moving.tenantId), 'target');
    assert.ok(!directory.paused.has(moving.tenantId));
  });

  it('the target holds exactly the tenant: every table and every account equal, nothing of another tenant', async () => {
    const onTarget = targetAtSwitch.counts;
    assert.deepEqual(onTarget, await tenantRowCounts(source.infra.db, moving.tenantId));
    for (const table of [
      'ledger_entries',
      'settlement_attempts',
      'ledger_reservations',
      'inbound_events',
      'tenant_events',
      'idempotency_keys',
      'workflow_outbox',
    ])
      assert.ok(onTarget[table]! > 0, `${table}: the tenant's rows were copied`);
    assert.deepEqual(targetAtSwitch.money, await accountMoney(source.infra.db, moving.tenantId));
    assert.deepEqual(
      (await target.infra.db('tenants').select('id')).map((row: { id: string }) => row.id),
      [moving.tenantId],
      'no other tenant reached the target',
    );
    const stayingCounts = await tenantRowCounts(target.infra.db, staying.tenantId);
    assert.deepEqual(
      Object.entries(stayingCounts).filter(([, rows]) => rows > 0),
      [],
    );
    // The tenant's reconciliation run came without its parent, the source's platform run.
    assert.deepEqual(await target.infra.db('reconciliation_runs').select('tenant_id', 'parent_run_id'), [
      { tenant_id: moving.tenantId, parent_run_id: null },
    ]);
    // The moved tenant's API key works on its new cluster and sees the same balances.
    const account = await call(target.apiUrl, 'GET', `/v1/accounts/${payer.AccountRef}`, { apiKey: moving.apiKey });
    assert.equal(account.status, 200, account.text);
  });

  it('the source refuses a late write of the moved tenant (a posting, a settlement step) and takes the other tenant’s', async () => {
    await assert.rejects(fundAccount(source, payee.ID, 100n), /read-only here: the tenant moved to another cluster/);
    const settlementId = (await source.infra.db('settlements').where({ merchant_tx_ref: settlementRef }).first('id')).id as string;
    // A late probe of the payout's reference (the step that submits it again) stops at the settlement's row, before the provider.
    await assert.rejects(source.services.settlementExecution.submitAttempt(settlementId, 1), /read-only here/);
    const stayingAccount = await source.infra.db('virtual_accounts').where({ tenant_id: staying.tenantId }).first('id');
    await fundAccount(source, stayingAccount.id as string, 100n);
    assert.deepEqual(await accountMoney(source.infra.db, moving.tenantId), targetAtSwitch.money, 'the refused writes changed nothing');
  });

  it('a copy that does not verify is refused: the target stays clean, the source unfenced, the tenant on the source', async () => {
    const refused = await moveTenant(broken.tenantId, { directory, source: sourceSide, target: targetSide, logger });
    assert.equal(refused.outcome, 'refused');
    assert.ok(refused.outcome === 'refused' && refused.differences.some((line) => line.startsWith('ledger:verify on the source: holds')));
    assert.equal(await directory.clusterOf(broken.tenantId), 'source');
    assert.ok(!directory.paused.has(broken.tenantId));
    assert.equal(await target.infra.db('tenants').where({ id: broken.tenantId }).first(), undefined);
    const brokenAccount = await source.infra.db('virtual_accounts').where({ tenant_id: broken.tenantId }).first('id', 'moved_out_at');
    assert.equal(brokenAccount.moved_out_at, null);
    await fundAccount(source, brokenAccount.id as string, 100n);
    await source.infra.db('virtual_accounts').where({ id: brokenAccount.id }).decrement('held_balance', 1);
  });

  it('the payout in flight is finished on the target and paid once; ledger:verify is clean on both databases', async () => {
    const paid = await call(source.sandboxUrl, 'POST', `/sandbox/transfers/${settlementRef}-1/settle`, { body: { status: 'SUCCESS' } });
    assert.equal(paid.status, 200, paid.text);
    await eventually(
      async () => {
        const transfer = (await call(target.apiUrl, 'GET', `/v1/transfers/${settlementRef}`, { apiKey: moving.apiKey })).body;
        return transfer.status === 'success' ? transfer : null;
      },
      { intervalMs: 250, what: `${settlementRef} to succeed on the target` },
    );
    const view = (await call(source.sandboxUrl, 'GET', `/sandbox/transfers/${settlementRef}`)).body as {
      payouts: number;
      submissions: unknown[];
    };
    assert.equal(view.payouts, 1);
    assert.equal(view.submissions.length, 1, 'the target followed the reference the source submitted');
    // The payout whose start the outbox held: parked on the source, started on the target, paid once.
    await eventually(
      async () => (await call(target.apiUrl, 'GET', `/v1/transfers/${queuedRef}`, { apiKey: moving.apiKey })).body.status === 'success',
      { intervalMs: 250, what: `${queuedRef} to succeed on the target` },
    );
    assert.equal((await call(source.sandboxUrl, 'GET', `/sandbox/transfers/${queuedRef}`)).body.payouts, 1);
    const sourceStart = await source.infra
      .db('workflow_outbox')
      .where({ workflow_id: settlementWorkflowId(queuedRef) })
      .first();
    assert.deepEqual([sourceStart.started_at, sourceStart.available_at], [null, Infinity]);
    const targetStart = await target.infra
      .db('workflow_outbox')
      .where({ workflow_id: settlementWorkflowId(queuedRef) })
      .first();
    assert.notEqual(targetStart.started_at, null);
    const onSource = await source.infra.db('settlements').where({ merchant_tx_ref: settlementRef }).first('status');
    assert.equal(onSource.status, 'processing', 'the source keeps the copy as it was taken');

    for (const url of [sourceDb.url, targetDb.url]) {
      const verified = await ledgerVerify(url);
      assert.deepEqual(
        verified.problems.filter((problem) => !JSON.stringify(problem).includes(broken.tenantId)),
        [],
      );
    }
    assert.equal((await ledgerVerify(targetDb.url)).code, 0);
  });
});
