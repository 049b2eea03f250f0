import { Client, Connection, ScheduleNotFoundError, type ScheduleDescription } from '@temporalio/client';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createBalanceSweepSchedules } from '../../../src/balance-sweeps/balance-sweep-schedules';
import { createBalanceSweepsService } from '../../../src/balance-sweeps/balance-sweeps.service';
import { balanceSweepScheduleId } from '../../../src/contracts/balance-sweep.contract';
import { isTemporalUnreachableError } from '../../../src/temporal/client';
import { fundAccount, provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

/**
 * A Temporal client whose every call is refused at once. Without the client's retries, so no call is
 * still retrying in the background (a push after a commit is not awaited) when the test closes it.
 */
const unreachableTemporal = (): Client =>
  new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500, interceptors: [] }) });

describe('balance sweeps', () => {
  let stack: Stack;
  let tenant: TestTenant;
  const schedules: string[] = [];
  before(async () => {
    stack = await startStack({}, { worker: true });
    tenant = await createTenant(stack);
  });
  after(async () => {
    // Schedules outlive the test's task queue on the shared dev server: none is left behind.
    for (const id of schedules)
      await stack.infra.temporal.schedule
        .getHandle(id)
        .delete()
        .catch(() => undefined);
    await stack.close();
  });

  /** A new saved beneficiary: a destination of its own (no sandbox magic ending), so no other test's sweep uses it. */
  async function saveBeneficiary(apiKey = tenant.apiKey): Promise<{ id: string; accountNumber: string }> {
    const accountNumber = `20${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}01`;
    const response = await call(stack.apiUrl, 'POST', '/v1/beneficiaries', {
      apiKey,
      body: { bankCode: DESTINATION.bankCode, accountNumber },
    });
    assert.equal(response.status, 201, response.text);
    return { id: response.body.id, accountNumber };
  }
  const beneficiary = async (apiKey = tenant.apiKey): Promise<string> => (await saveBeneficiary(apiKey)).id;

  async function account(apiKey = tenant.apiKey): Promise<ProvisionedAccount> {
    const provisioned = await provisionAccount(stack, apiKey);
    schedules.push(balanceSweepScheduleId(provisioned.ID));
    return provisioned;
  }

  const sweepPath = (target: ProvisionedAccount) => `/v1/accounts/${target.AccountRef}/sweep`;
  const put = (target: ProvisionedAccount, body: unknown, apiKey = tenant.apiKey) =>
    call(stack.apiUrl, 'PUT', sweepPath(target), { apiKey, body });

  /** The account's Schedule as Temporal describes it, or null once it is gone. */
  async function schedule(target: ProvisionedAccount): Promise<ScheduleDescription | null> {
    try {
      return await stack.infra.temporal.schedule.getHandle(balanceSweepScheduleId(target.ID)).describe();
    } catch (error) {
      if (error instanceof ScheduleNotFoundError) return null;
      throw error;
    }
  }

  const run = (target: ProvisionedAccount, scheduledAtMs: number) =>
    stack.services.balanceSweeps.run({ tenantId: tenant.tenantId, accountId: target.ID, scheduledAtMs });

  const settlementsOf = (target: ProvisionedAccount) =>
    stack.infra
      .db('settlements')
      .where({ account_id: target.ID })
      .select('merchant_tx_ref', 'amount', 'bank_code', 'account_number', 'status', 'beneficiary_id');

  it('PUT sets a daily sweep (its Schedule at HH:MM Africa/Lagos), GET shows it, PUT changes it to a threshold, DELETE stops it (204) and its Schedule goes', async () => {
    const target = await account();
    const beneficiaryId = await beneficiary();
    const set = await put(target, { beneficiaryId, schedule: { dailyAt: '18:30' }, keep: '100' });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(
      { ...set.body, createdAt: undefined, updatedAt: undefined },
      {
        accountRef: target.AccountRef,
        beneficiaryId,
        schedule: { dailyAt: '18:30' },
        keep: '100.00',
        timeZone: 'Africa/Lagos',
        createdAt: undefined,
        updatedAt: undefined,
        runs: [],
      },
    );
    const read = await call(stack.apiUrl, 'GET', sweepPath(target), { apiKey: tenant.apiKey });
    assert.deepEqual([read.status, read.body], [200, set.body]);
    const daily = await eventually(async () => (await schedule(target))?.spec.calendars?.[0] && (await schedule(target)), {
      what: 'the daily Schedule',
    });
    assert.equal(daily.spec.timezone, 'Africa/Lagos');
    assert.deepEqual(
      [daily.spec.calendars?.[0]?.hour, daily.spec.calendars?.[0]?.minute],
      [[{ start: 18, end: 18, step: 1 }], [{ start: 30, end: 30, step: 1 }]],
    );
    assert.equal(daily.action.type === 'startWorkflow' && daily.action.workflowType, 'balanceSweepWorkflow');

    const threshold = await put(target, { beneficiaryId, schedule: { whenAbove: '5000.50' } });
    assert.deepEqual([threshold.status, threshold.body.schedule, threshold.body.keep], [200, { whenAbove: '5000.50' }, '0.00']);
    const checks = await eventually(async () => ((await schedule(target))?.spec.intervals?.length ? schedule(target) : null), {
      what: 'the Schedule turned into an interval check',
    });
    assert.deepEqual(
      checks!.spec.intervals?.map((interval) => interval.every),
      [stack.config.BALANCE_SWEEP_CHECK_INTERVAL],
    );
    assert.deepEqual(checks!.spec.calendars ?? [], []);

    const deleted = await call(stack.apiUrl, 'DELETE', sweepPath(target), { apiKey: tenant.apiKey });
    assert.deepEqual([deleted.status, deleted.text], [204, '']);
    const gone = await call(stack.apiUrl, 'GET', sweepPath(target), { apiKey: tenant.apiKey });
    assert.deepEqual([gone.status, gone.body.error], [404, 'balance sweep not found']);
    const again = await call(stack.apiUrl, 'DELETE', sweepPath(target), { apiKey: tenant.apiKey });
    assert.deepEqual([again.status, again.body.error], [404, 'balance sweep not found']);
    await eventually(async () => (await schedule(target)) === null, { what: 'the Schedule deleted' });

    const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, target_id: target.AccountRef }).orderBy('id');
    assert.deepEqual(
      audit.map((row) => [row.actor, row.action]),
      [
        ['API key', 'balance_sweep.set'],
        ['API key', 'balance_sweep.set'],
        ['API key', 'balance_sweep.deleted'],
      ],
    );
  });

  it('answers 400 with a message for a bad time, a bad amount, both or neither schedule form; 404 for an unknown beneficiary or account', async () => {
    const target = await account();
    const beneficiaryId = await beneficiary();
    const cases: Array<[unknown, string]> = [
      [{ beneficiaryId, schedule: { dailyAt: '24:00' } }, 'schedule.dailyAt must be a time of day as HH:MM, 00:00 to 23:59 (Africa/Lagos)'],
      [{ beneficiaryId, schedule: { dailyAt: '7:30' } }, 'schedule.dailyAt must be a time of day as HH:MM, 00:00 to 23:59 (Africa/Lagos)'],
      [{ beneficiaryId, schedule: { dailyAt: 730 } }, 'schedule.dailyAt must be a time of day as HH:MM, 00:00 to 23:59 (Africa/Lagos)'],
      [{ beneficiaryId, schedule: { whenAbove: '0' } }, 'schedule.whenAbove must be a positive amount with at most two decimals'],
      [{ beneficiaryId, schedule: { whenAbove: '1.234' } }, 'schedule.whenAbove must be a positive amount with at most two decimals'],
      [{ beneficiaryId, schedule: { whenAbove: 100 } }, 'schedule.whenAbove must be a positive amount with at most two decimals'],
      [
        { beneficiaryId, schedule: { dailyAt: '08:00', whenAbove: '100' } },
        'schedule must have exactly one of dailyAt ("HH:MM", Africa/Lagos) or whenAbove (an amount)',
      ],
      [{ beneficiaryId, schedule: {} }, 'schedule must have exactly one of dailyAt ("HH:MM", Africa/Lagos) or whenAbove (an amount)'],
      [{ beneficiaryId }, 'schedule must be an object: {"dailyAt": "HH:MM"} or {"whenAbove": "<amount>"}'],
      [{ beneficiaryId, schedule: { dailyAt: '08:00' }, keep: '-1' }, 'keep must be an amount of zero or more with at most two decimals'],
      [{ schedule: { dailyAt: '08:00' } }, 'beneficiaryId is required'],
    ];
    for (const [body, message] of cases) {
      const response = await put(target, body);
      assert.deepEqual([response.status, response.body.error], [400, message], JSON.stringify(body));
    }
    for (const unknown of [randomUUID(), 'not-a-uuid']) {
      const response = await put(target, { beneficiaryId: unknown, schedule: { dailyAt: '08:00' } });
      assert.deepEqual([response.status, response.body.error], [404, 'beneficiary not found']);
    }
    const missing = await call(stack.apiUrl, 'PUT', '/v1/accounts/va_nosuch_000000000000/sweep', {
      apiKey: tenant.apiKey,
      body: { beneficiaryId, schedule: { dailyAt: '08:00' } },
    });
    assert.deepEqual([missing.status, missing.body.error], [404, 'account not found']);
    // Nothing was written by any refusal.
    assert.equal(await stack.infra.db('balance_sweeps').where({ account_id: target.ID }).first(), undefined);
  });

  it("keeps tenants apart: another tenant's account is not found, and so is its beneficiary", async () => {
    const target = await account();
    const beneficiaryId = await beneficiary();
    assert.equal((await put(target, { beneficiaryId, schedule: { dailyAt: '08:00' } })).status, 200);
    const other = await createTenant(stack, 'Other');
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await call(stack.apiUrl, method, sweepPath(target), {
        apiKey: other.apiKey,
        ...(method === 'PUT' ? { body: { beneficiaryId: await beneficiary(other.apiKey), schedule: { dailyAt: '08:00' } } } : {}),
      });
      assert.deepEqual([response.status, response.body.error], [404, 'account not found'], method);
    }
    const ownAccount = await account(other.apiKey);
    const foreignBeneficiary = await put(ownAccount, { beneficiaryId, schedule: { dailyAt: '08:00' } }, other.apiKey);
    assert.deepEqual([foreignBeneficiary.status, foreignBeneficiary.body.error], [404, 'beneficiary not found']);
    const operator = await dashboardUser(stack, other.tenantId, 'operator');
    const byUrl = await call(stack.apiUrl, 'GET', `/auth/accounts/${target.AccountRef}/sweep`, { cookie: operator.cookie });
    assert.deepEqual([byUrl.status, byUrl.body.error], [404, 'account not found']);
    const read = await call(stack.apiUrl, 'GET', sweepPath(target), { apiKey: tenant.apiKey });
    assert.deepEqual(read.body.schedule, { dailyAt: '08:00' });
  });

  it("the dashboard shows and edits an account's sweep (an admin's change, audited by name: a rule that moves money; an operator and a viewer may only read)", async () => {
    const target = await account();
    const beneficiaryId = await beneficiary();
    const admin = await dashboardUser(stack, tenant.tenantId, 'admin');
    const operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    const path = `/auth/accounts/${target.AccountRef}/sweep`;
    const sweep = { beneficiaryId, schedule: { whenAbove: '2000' } };
    assert.equal((await call(stack.apiUrl, 'PUT', path, { cookie: operator.cookie, body: sweep })).status, 403);
    const set = await call(stack.apiUrl, 'PUT', path, {
      cookie: admin.cookie,
      body: { beneficiaryId, schedule: { whenAbove: '2000' } },
    });
    assert.deepEqual([set.status, set.body.schedule], [200, { whenAbove: '2000.00' }]);
    const viewer = await dashboardUser(stack, tenant.tenantId, 'viewer');
    assert.deepEqual((await call(stack.apiUrl, 'GET', path, { cookie: viewer.cookie })).body, set.body);
    assert.equal((await call(stack.apiUrl, 'DELETE', path, { cookie: viewer.cookie })).status, 403);
    assert.equal((await call(stack.apiUrl, 'DELETE', path, { cookie: operator.cookie })).status, 403);
    assert.equal((await call(stack.apiUrl, 'DELETE', path, { cookie: admin.cookie })).status, 204);
    const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, target_id: target.AccountRef }).orderBy('id');
    assert.deepEqual(
      audit.map((row) => [row.user_id, row.actor, row.action]),
      [
        [admin.userId, admin.email, 'balance_sweep.set'],
        [admin.userId, admin.email, 'balance_sweep.deleted'],
      ],
    );
  });

  it('a threshold sweep of a funded account pays once per period to the saved beneficiary, however often its run is repeated', async () => {
    const target = await account();
    const { id: beneficiaryId, accountNumber } = await saveBeneficiary();
    await fundAccount(stack, target.ID, 1_000_000n);
    assert.equal((await put(target, { beneficiaryId, schedule: { whenAbove: '1000' }, keep: '500' })).status, 200);
    const slot = Date.parse('2026-12-01T10:00:00Z');
    const runs = await Promise.all([run(target, slot + 1_000), run(target, slot + 2_000), run(target, slot + 3_000)]);
    const again = await run(target, slot + 60_000);
    const settled = await settlementsOf(target);
    assert.equal(settled.length, 1);
    const expected = {
      outcome: 'settled',
      period: '2026-12-01T10:00:00.000Z',
      reason: null,
      merchantTxRef: settled[0].merchant_tx_ref,
      amount: '9500.00',
    };
    for (const result of [...runs, again]) assert.deepEqual(result, expected);
    assert.deepEqual(
      [settled[0].amount, settled[0].bank_code, settled[0].account_number, settled[0].beneficiary_id],
      ['950000', DESTINATION.bankCode, accountNumber, beneficiaryId],
    );
    // Under the key the service derives for the account and period, which no client may send.
    const key = await stack.infra
      .db('idempotency_keys')
      .where({ tenant_id: tenant.tenantId, resource_ref: settled[0].merchant_tx_ref })
      .first();
    assert.deepEqual([key.scope, key.key], ['settlement', `service balance-sweep:${target.AccountRef}:2026-12-01T10:00:00.000Z`]);
    const transfer = await call(stack.apiUrl, 'GET', `/v1/transfers/${settled[0].merchant_tx_ref}`, { apiKey: tenant.apiKey });
    assert.deepEqual([transfer.status, transfer.body.beneficiaryId], [200, beneficiaryId]);
    // An ordinary settlement: its workflow pays it out.
    await eventually(async () => (await settlementsOf(target))[0].status === 'success', { what: 'the sweep settlement paid out' });

    // The next slot finds only what it keeps: nothing to move, recorded.
    const next = await run(target, slot + stack.config.BALANCE_SWEEP_CHECK_INTERVAL);
    assert.equal(next.outcome, 'nothing_to_move');
    assert.equal((await settlementsOf(target)).length, 1);
    const read = await call(stack.apiUrl, 'GET', sweepPath(target), { apiKey: tenant.apiKey });
    assert.deepEqual(
      read.body.runs.map((entry: { outcome: string; amount: string | null }) => [entry.outcome, entry.amount]),
      [
        ['nothing_to_move', null],
        ['settled', '9500.00'],
      ],
    );
  });

  it("a tenant's request cannot take a run's Idempotency-Key: the key the service derives is refused (400) and the run still pays", async () => {
    const target = await account();
    const beneficiaryId = await beneficiary();
    await fundAccount(stack, target.ID, 1_000_000n);
    assert.equal((await put(target, { beneficiaryId, schedule: { whenAbove: '1000' } })).status, 200);
    const period = '2026-12-01T10:00:00.000Z';
    const settle = (key: string) =>
      call(stack.apiUrl, 'POST', `/v1/accounts/${target.AccountRef}/settle`, {
        apiKey: tenant.apiKey,
        headers: { 'Idempotency-Key': key },
        body: { amount: '1.00', ...DESTINATION },
      });
    const derived = await settle(`service balance-sweep:${target.AccountRef}:${period}`);
    assert.deepEqual([derived.status, derived.body.error], [400, 'Idempotency-Key must be 1 to 255 visible ASCII characters']);
    // The same text without the service's reserved prefix is only the tenant's own key.
    const own = await settle(`balance-sweep:${target.AccountRef}:${period}`);
    assert.equal(own.status, 202, own.text);

    const result = await run(target, Date.parse(period));
    const sweepSettlement = (await settlementsOf(target)).find((row) => row.merchant_tx_ref !== own.body.merchantTxRef);
    assert.deepEqual(result, {
      outcome: 'settled',
      period,
      reason: null,
      merchantTxRef: sweepSettlement?.merchant_tx_ref,
      amount: '9999.00',
    });
  });

  it("caps a run at what the customer's daily payout limit leaves today, and moves nothing once it leaves nothing", async () => {
    const target = await account();
    const beneficiaryId = await beneficiary();
    // 80,000.00 in two credits within the tier-1 single-credit limit; the tier-1 daily payout limit is 50,000.00.
    await fundAccount(stack, target.ID, 4_000_000n);
    await fundAccount(stack, target.ID, 4_000_000n);
    const spent = await call(stack.apiUrl, 'POST', `/v1/accounts/${target.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '20000.00', ...DESTINATION },
    });
    assert.equal(spent.status, 202, spent.text);
    assert.equal((await put(target, { beneficiaryId, schedule: { dailyAt: '17:00' } })).status, 200);

    const capped = await run(target, Date.parse('2026-12-01T16:00:00Z'));
    const settled = (await settlementsOf(target)).filter((row) => row.beneficiary_id === beneficiaryId);
    assert.deepEqual(capped, {
      outcome: 'settled',
      period: '2026-12-01',
      reason:
        'capped at the 30000.00 left today (Africa/Lagos) of the tier 1 daily payout limit of 50000.00; the rest goes in a later period',
      merchantTxRef: settled[0]?.merchant_tx_ref,
      amount: '30000.00',
    });
    assert.equal(settled[0].amount, '3000000');

    // Another period run today finds the limit used up: nothing moves, and nothing is refused.
    assert.deepEqual(await run(target, Date.parse('2026-12-02T16:00:00Z')), {
      outcome: 'nothing_to_move',
      period: '2026-12-02',
      reason: 'the tier 1 daily payout limit of 50000.00 has nothing left today (Africa/Lagos)',
      merchantTxRef: null,
      amount: null,
    });
    assert.equal((await settlementsOf(target)).length, 2);
  });

  it("a triggered Schedule runs the sweep's workflow for the slot it was due in", async () => {
    const target = await account();
    const beneficiaryId = await beneficiary();
    await fundAccount(stack, target.ID, 300_000n);
    assert.equal((await put(target, { beneficiaryId, schedule: { whenAbove: '1000' } })).status, 200);
    await eventually(() => schedule(target), { what: 'the Schedule' });
    const handle = stack.infra.temporal.schedule.getHandle(balanceSweepScheduleId(target.ID));
    await handle.trigger();
    const action = await eventually(async () => (await handle.describe()).info.recentActions[0], { what: 'the triggered run' });
    const result = await stack.infra.temporal.workflow.getHandle(action.action.workflow.workflowId).result();
    const slotMs = stack.config.BALANCE_SWEEP_CHECK_INTERVAL;
    const slot = new Date(Math.floor(action.scheduledAt.getTime() / slotMs) * slotMs).toISOString();
    assert.deepEqual(
      { ...result, merchantTxRef: undefined },
      { outcome: 'settled', period: slot, reason: null, merchantTxRef: undefined, amount: '3000.00' },
    );
    assert.equal((await settlementsOf(target)).length, 1);
  });

  it('records a run with nothing to move, and moves nothing', async () => {
    const empty = await account();
    const beneficiaryId = await beneficiary();
    assert.equal((await put(empty, { beneficiaryId, schedule: { whenAbove: '1000' } })).status, 200);
    assert.deepEqual(await run(empty, Date.parse('2026-12-01T10:00:00Z')), {
      outcome: 'nothing_to_move',
      period: '2026-12-01T10:00:00.000Z',
      reason: '0.00 to spend is not above the threshold of 1000.00',
      merchantTxRef: null,
      amount: null,
    });
    const kept = await account();
    await fundAccount(stack, kept.ID, 50_000n);
    assert.equal((await put(kept, { beneficiaryId, schedule: { dailyAt: '17:00' }, keep: '500' })).status, 200);
    // 23:30 UTC is already the next day in Lagos (UTC+1).
    assert.deepEqual(await run(kept, Date.parse('2026-12-01T23:30:00Z')), {
      outcome: 'nothing_to_move',
      period: '2026-12-02',
      reason: '500.00 to spend is not above the 500.00 to keep',
      merchantTxRef: null,
      amount: null,
    });
    assert.deepEqual([...(await settlementsOf(empty)), ...(await settlementsOf(kept))], []);
  });

  it('pauses (recorded, nothing moved) while the account is in deficit, its customer suspended or the account expired', async () => {
    const beneficiaryId = await beneficiary();
    const day = Date.parse('2026-12-01T12:00:00Z');

    const inDeficit = await account();
    const credit = await fundAccount(stack, inDeficit.ID, 50_000n, 'provisional');
    const spent = await call(stack.apiUrl, 'POST', `/v1/accounts/${inDeficit.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '100.00', ...DESTINATION },
    });
    assert.equal(spent.status, 202);
    await stack.infra.db.transaction((trx) => stack.services.postingEngine.reverse(trx, credit.id, 'provider did not confirm'));
    await fundAccount(stack, inDeficit.ID, 5_000n, 'provisional');
    assert.equal((await put(inDeficit, { beneficiaryId, schedule: { dailyAt: '09:00' } })).status, 200);
    const paused = await run(inDeficit, day);
    assert.deepEqual([paused.outcome, 'reason' in paused && paused.reason], ['paused', 'account in deficit']);

    const suspended = await account();
    await fundAccount(stack, suspended.ID, 50_000n);
    assert.equal((await put(suspended, { beneficiaryId, schedule: { dailyAt: '09:00' } })).status, 200);
    const admin = await dashboardUser(stack, tenant.tenantId, 'admin');
    assert.equal(
      (await call(stack.apiUrl, 'POST', `/auth/customers/${suspended.CustomerID}/suspend`, { cookie: admin.cookie })).status,
      200,
    );
    const suspendedRun = await run(suspended, day);
    assert.deepEqual([suspendedRun.outcome, 'reason' in suspendedRun && suspendedRun.reason], ['paused', 'customer suspended']);

    const expired = await account();
    await fundAccount(stack, expired.ID, 50_000n);
    assert.equal((await put(expired, { beneficiaryId, schedule: { dailyAt: '09:00' } })).status, 200);
    await stack.infra.db('virtual_accounts').where({ id: expired.ID }).update({ status: 'expired' });
    const expiredRun = await run(expired, day);
    assert.deepEqual([expiredRun.outcome, 'reason' in expiredRun && expiredRun.reason], ['paused', 'account expired']);

    for (const target of [inDeficit, suspended, expired]) {
      assert.equal((await settlementsOf(target)).filter((row) => row.amount !== '10000').length, 0);
      const read = await call(stack.apiUrl, 'GET', sweepPath(target), { apiKey: tenant.apiKey });
      assert.deepEqual(
        read.body.runs.map((entry: { period: string; outcome: string }) => [entry.period, entry.outcome]),
        [['2026-12-01', 'paused']],
      );
    }
  });

  it('a sweep set while Temporal is unreachable gets its Schedule from the worker once the push after the commit failed', async () => {
    const target = await account();
    const beneficiaryId = await beneficiary();
    // An API process whose Temporal connection refuses every call.
    const unreachable = unreachableTemporal();
    const offline = createBalanceSweepsService({
      db: stack.infra.db,
      config: stack.config,
      settlements: stack.services.settlements,
      postingEngine: stack.services.postingEngine,
      schedules: createBalanceSweepSchedules({ db: stack.infra.db, client: unreachable, config: stack.config, logger: stack.infra.logger }),
    });
    await offline.put({ tenantId: tenant.tenantId }, target.AccountRef, { beneficiaryId, schedule: { dailyAt: '06:15' } });
    assert.ok(await stack.infra.db('balance_sweeps').where({ account_id: target.ID }).first());
    const daily = await eventually(() => schedule(target), { what: "the worker's loop to create the Schedule" });
    assert.deepEqual(daily.spec.calendars?.[0]?.minute, [{ start: 15, end: 15, step: 1 }]);
    await offline.delete({ tenantId: tenant.tenantId }, target.AccountRef);
    // The deleted sweep's row stays, marked pushed once its Schedule is gone.
    const tombstone = await eventually(
      async () => {
        const row = await stack.infra.db('balance_sweeps').where({ account_id: target.ID }).first();
        return row.schedule_version === row.version && row;
      },
      { what: "the worker's loop to delete the Schedule" },
    );
    assert.ok(tombstone.deleted_at);
    assert.equal(await schedule(target), null);
    await unreachable.connection.close().catch(() => undefined);
  });

  it('a beneficiary a sweep pays to cannot be deleted (409) until the sweep is', async () => {
    const target = await account();
    const beneficiaryId = await beneficiary();
    assert.equal((await put(target, { beneficiaryId, schedule: { dailyAt: '08:00' } })).status, 200);
    const refused = await call(stack.apiUrl, 'DELETE', `/v1/beneficiaries/${beneficiaryId}`, { apiKey: tenant.apiKey });
    assert.equal(refused.status, 409);
    assert.match(refused.body.error, new RegExp(`balance sweep of account ${target.AccountRef}`));
    assert.equal((await call(stack.apiUrl, 'DELETE', sweepPath(target), { apiKey: tenant.apiKey })).status, 204);
    assert.equal((await call(stack.apiUrl, 'DELETE', `/v1/beneficiaries/${beneficiaryId}`, { apiKey: tenant.apiKey })).status, 204);
  });
});

describe('balance sweep Schedules brought in line', () => {
  // No worker: its loop would bring the sweeps in line itself; here each pass is the test's.
  let stack: Stack;
  let tenant: TestTenant;
  let unreachable: Client;
  const accountIds: string[] = [];
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    unreachable = unreachableTemporal();
  });
  after(async () => {
    for (const accountId of accountIds)
      await stack.infra.temporal.schedule
        .getHandle(balanceSweepScheduleId(accountId))
        .delete()
        .catch(() => undefined);
    await unreachable.connection.close().catch(() => undefined);
    await stack.close();
  });

  /** Schedules over `client`, each call to Temporal's Schedules going through `hook` first. */
  function schedulesOver(
    client: Client,
    hook: (call: 'create' | 'update' | 'delete', scheduleId: string) => Promise<void> = async () => {},
  ) {
    const real = client.schedule;
    const hooked = {
      async create(options: Parameters<typeof real.create>[0]) {
        await hook('create', options.scheduleId);
        return real.create(options);
      },
      getHandle(scheduleId: string) {
        const handle = real.getHandle(scheduleId);
        return {
          async update(updateFn: Parameters<typeof handle.update>[0]) {
            await hook('update', scheduleId);
            return handle.update(updateFn);
          },
          async delete() {
            await hook('delete', scheduleId);
            return handle.delete();
          },
        };
      },
    };
    const proxied = new Proxy(client, { get: (target, name) => (name === 'schedule' ? hooked : Reflect.get(target, name)) });
    return createBalanceSweepSchedules({ db: stack.infra.db, client: proxied, config: stack.config, logger: stack.infra.logger });
  }

  /** A sweeps service whose pushes after the commit never reach Temporal: every change it makes is left pending. */
  const offline = () =>
    createBalanceSweepsService({
      db: stack.infra.db,
      config: stack.config,
      settlements: stack.services.settlements,
      postingEngine: stack.services.postingEngine,
      schedules: schedulesOver(unreachable),
    });

  /** An account with a daily sweep set while Temporal was unreachable (its Schedule not pushed yet). */
  async function pendingSweep(dailyAt = '06:00'): Promise<ProvisionedAccount> {
    const target = await provisionAccount(stack, tenant.apiKey);
    accountIds.push(target.ID);
    const saved = await call(stack.apiUrl, 'POST', '/v1/beneficiaries', {
      apiKey: tenant.apiKey,
      body: { bankCode: DESTINATION.bankCode, accountNumber: `30${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}01` },
    });
    assert.equal(saved.status, 201, saved.text);
    await offline().put({ tenantId: tenant.tenantId }, target.AccountRef, { beneficiaryId: saved.body.id, schedule: { dailyAt } });
    return target;
  }

  const sweepRow = (target: ProvisionedAccount) => stack.infra.db('balance_sweeps').where({ account_id: target.ID }).first();
  const dailyMinute = async (target: ProvisionedAccount) =>
    (await stack.infra.temporal.schedule.getHandle(balanceSweepScheduleId(target.ID)).describe()).spec.calendars?.[0]?.minute?.[0]?.start;

  it('a sweep whose push fails is logged and passed over: the sweeps after it are still brought in line', async () => {
    const failing = await pendingSweep();
    const other = await pendingSweep('06:45');
    const schedules = schedulesOver(stack.infra.temporal, async (_call, scheduleId) => {
      if (scheduleId === balanceSweepScheduleId(failing.ID)) throw new Error('refused for the test');
    });
    const pass = await schedules.syncPending();
    assert.ok(pass.failed >= 1 && pass.synced >= 1, JSON.stringify(pass));
    assert.equal(await dailyMinute(other), 45);
    const [failed, synced] = [await sweepRow(failing), await sweepRow(other)];
    assert.notEqual(failed.schedule_version, failed.version);
    assert.equal(synced.schedule_version, synced.version);
  });

  it('a pass stops at the first sweep when Temporal cannot be reached, rather than waiting on it for every sweep', async () => {
    await pendingSweep();
    await pendingSweep();
    let calls = 0;
    const schedules = schedulesOver(unreachable, async () => {
      calls += 1;
    });
    await assert.rejects(schedules.syncPending(), (error: unknown) => isTemporalUnreachableError(error));
    assert.equal(calls, 1);
  });

  it('a change committed while a push waits on Temporal does not wait for it, and the Schedule ends at the latest change', async () => {
    const target = await pendingSweep('06:00');
    let raced = false;
    const slow = schedulesOver(stack.infra.temporal, async (call, scheduleId) => {
      if (raced || call !== 'create' || scheduleId !== balanceSweepScheduleId(target.ID)) return;
      raced = true;
      // While this push of 06:00 is on its way: the sweep changes to 06:30, and that change is pushed first.
      const row = await sweepRow(target);
      await offline().put({ tenantId: tenant.tenantId }, target.AccountRef, {
        beneficiaryId: row.beneficiary_id,
        schedule: { dailyAt: '06:30' },
      });
      await stack.services.balanceSweepSchedules.sync(target.ID);
      assert.equal(await dailyMinute(target), 30);
    });
    await slow.sync(target.ID);
    assert.ok(raced);
    // The older push landed last, and was followed by the latest again.
    assert.equal(await dailyMinute(target), 30);
    const row = await sweepRow(target);
    assert.equal(row.schedule_version, row.version);
    assert.equal(row.daily_at, '06:30');
  });
});
