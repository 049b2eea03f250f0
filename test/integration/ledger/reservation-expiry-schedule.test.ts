import type { ScheduleHandle } from '@temporalio/client';
import assert from 'node:assert/strict';
import { reservationExpiryScheduleId, type ReservationExpiryResult } from '../../../src/contracts/reservation-expiry.contract';
import { createReservations } from '../../../src/ledger/reservations';
import { ensurePeriodicSchedules } from '../../../src/workflow-starts/periodic-schedules';
import { fundAccount, provisionAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/**
 * Reservations expire on a clock: a Temporal Schedule's run releases, as expired, every reservation whose expiry has
 * passed. The Schedule is made here, not by every stack (its runs would expire other tests' rows at times they do
 * not choose), and run by hand.
 */
describe('reservations: expiry runs on a Temporal Schedule', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let schedule: ScheduleHandle;
  before(async () => {
    stack = await startStack({}, { worker: true });
    tenant = await createTenant(stack);
    const [id] = await ensurePeriodicSchedules(stack.infra.temporal, stack.config, ['reservationExpiry']);
    schedule = stack.infra.temporal.schedule.getHandle(id!);
    await schedule.pause('the test runs it by hand');
  });
  after(async () => {
    await schedule?.delete();
    await stack.close();
  });

  it('the worker has a Schedule starting reservationExpiryWorkflow every RESERVATION_EXPIRY_INTERVAL', async () => {
    const described = await schedule.describe();
    assert.equal(schedule.scheduleId, reservationExpiryScheduleId(stack.config.TEMPORAL_TASK_QUEUE));
    assert.equal(described.action.type, 'startWorkflow');
    assert.deepEqual(
      [described.action.workflowType, described.action.taskQueue, described.spec.intervals?.[0]?.every],
      ['reservationExpiryWorkflow', stack.config.TEMPORAL_TASK_QUEUE, stack.config.RESERVATION_EXPIRY_INTERVAL],
    );
  });

  it("a reservation whose expiry has passed is released as expired by a run of the Schedule, told by no event (a KYC limit's expiry has none)", async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const { id: credit } = await fundAccount(stack, account.ID, 10_000_00n);
    const db = stack.infra.db;
    const [due, later] = await db.transaction(async (trx) => {
      await stack.services.postingEngine.lockAccounts(trx, [account.ID]);
      const reservations = createReservations(trx);
      // One reservation of a kind per owner: the one due is over a KYC limit, the one not due a mismatch.
      const due = await reservations.reserve({
        accountId: account.ID,
        kind: 'kyc_limit',
        reason: 'single_credit',
        ownerId: credit,
        amount: 3_000_00n,
        tier: 1,
        limitAmount: 0n,
        expiresAt: new Date(Date.now() - 1_000),
      });
      const later = await reservations.reserve({
        accountId: account.ID,
        kind: 'payment_mismatch',
        reason: 'amount_mismatch',
        ownerId: credit,
        amount: 2_000_00n,
        expiresAt: new Date(Date.now() + 3_600_000),
      });
      return [due, later];
    });
    const held = async () =>
      (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body.heldBalance as string;
    assert.equal(await held(), '5000.00');
    const eventsBefore = await db('tenant_events').where({ tenant_id: tenant.tenantId }).count<[{ count: string }]>('id as count');

    const runsBefore = new Set((await schedule.describe()).info.recentActions.map((action) => action.action.workflow.workflowId));
    await schedule.trigger();
    const result = (await eventually(
      async () => {
        const run = (await schedule.describe()).info.recentActions.find((action) => !runsBefore.has(action.action.workflow.workflowId));
        return run ? stack.infra.temporal.workflow.getHandle(run.action.workflow.workflowId).result() : null;
      },
      { what: 'the triggered run' },
    )) as ReservationExpiryResult;

    assert.ok(result.expired >= 1, `the run expired ${result.expired}`);
    const changes = await db('ledger_reservation_changes')
      .whereIn('reservation_id', [due, later])
      .select('reservation_id', 'outcome', 'amount');
    assert.deepEqual(changes, [{ reservation_id: due, outcome: 'expired', amount: '300000' }], 'only the one whose expiry passed');
    assert.equal(await held(), '2000.00');
    const eventsAfter = await db('tenant_events').where({ tenant_id: tenant.tenantId }).count<[{ count: string }]>('id as count');
    assert.deepEqual(eventsAfter, eventsBefore, 'no event told of the expiry');
  });
});
