import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { uuidv7 } from '../../../src/ids';
import { ensurePeriodicSchedule, periodicSchedules } from '../../../src/workflow-starts/periodic-schedules';
import { eventsFor, paymentEvent, provisionAccount, sendProviderEvent } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardUser, signIn } from '../../helpers/session';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

const DAY = 86_400_000;
const runCli = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.resolve(__dirname, '../../../src/main/cli.js'), ...args], { env: process.env });

describe('retention of inbound payloads and operational rows', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({}, { worker: true });
  });
  after(() => stack.close());

  it('deletes unverified events, empties old payloads, and keeps every verified event row, so a redelivery is still a duplicate', async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    const payment = paymentEvent({ accountRef: account.AccountRef, amount: 5025, fee: 25 });
    assert.equal((await sendProviderEvent(stack, payment)).status, 200);
    const forged = paymentEvent({ accountRef: account.AccountRef });
    assert.equal((await sendProviderEvent(stack, forged, { forged: true })).status, 200);
    const misdirected = paymentEvent({ accountRef: `va_${randomBytes(3).toString('hex')}_000000000000` });
    assert.equal((await sendProviderEvent(stack, misdirected)).status, 200);
    const processingError = paymentEvent({ accountRef: account.AccountRef, amount: 10, fee: 25 });
    assert.equal((await sendProviderEvent(stack, processingError)).status, 200);

    // Nothing is old yet: a run changes none of these rows.
    await stack.services.retention.run();
    assert.equal((await eventsFor(stack, forged.requestId as string)).length, 1);

    // A run as if 100 days had passed.
    const result = await stack.services.retention.run({ now: new Date(Date.now() + 100 * DAY) });
    assert.ok(result.unverifiedEventsDeleted >= 1);
    assert.ok(result.eventPayloadsStripped >= 1);
    assert.deepEqual(await eventsFor(stack, forged.requestId as string), []);
    // Its body's key goes with it: the same forged body sent again is stored afresh.
    assert.equal((await sendProviderEvent(stack, forged, { forged: true })).status, 200);
    assert.deepEqual(
      (await eventsFor(stack, forged.requestId as string)).map((event) => event.category),
      ['sig_invalid'],
    );
    const paymentRow = await stack.infra.db('inbound_events').where({ request_id: payment.requestId }).first();
    assert.equal(paymentRow.category, 'payment');
    assert.equal(paymentRow.payload, null);
    // Still in use: an unassigned misdirected payment and a processing error keep their payloads.
    for (const kept of [misdirected, processingError]) {
      const row = await stack.infra.db('inbound_events').where({ request_id: kept.requestId }).first();
      assert.notEqual(row.payload, null, row.category);
    }

    assert.equal((await sendProviderEvent(stack, payment)).status, 200);
    assert.deepEqual(
      (await eventsFor(stack, payment.requestId as string)).map((event) => event.category),
      ['payment'],
    );
    const entries = await stack.infra.db('ledger_entries').where({ account_id: account.ID });
    assert.equal(entries.length, 1);
  });

  it('deletes started workflow jobs and ended sessions past RETENTION_HOUSEKEEPING, and nothing unstarted', async () => {
    const old = new Date(Date.now() - 40 * DAY);
    await stack.infra.db('workflow_outbox').insert([
      {
        workflow_id: `retention-test-started-${randomUUID()}`,
        workflow_type: 'webhookDeliveryWorkflow',
        args: '{}',
        created_at: old,
        started_at: old,
      },
      // Unstarted because its start keeps failing: backing off, so the worker's drainer leaves it alone meanwhile.
      {
        workflow_id: `retention-test-unstarted-${randomUUID()}`,
        workflow_type: 'webhookDeliveryWorkflow',
        args: '{}',
        created_at: old,
        started_at: null,
        attempts: 12,
        available_at: new Date(Date.now() + DAY),
        last_error: 'refused by Temporal',
      },
    ]);
    const { stdout } = await runCli('retention:run', '--json');
    const result = JSON.parse(stdout) as Record<string, number>;
    assert.ok(result.startedJobsDeleted! >= 1);
    const left = await stack.infra.db('workflow_outbox').where('workflow_id', 'like', 'retention-test-%').select('workflow_id');
    assert.deepEqual(
      left.map((row) => row.workflow_id.split('-')[2]),
      ['unstarted'],
    );
    await stack.infra.db('workflow_outbox').where('workflow_id', 'like', 'retention-test-%').delete();
  });

  it("deletes a dashboard user's long-ended sessions and keeps the user, the live session and the audit log of what they did", async () => {
    const tenant = await createTenant(stack);
    const user = await dashboardUser(stack, tenant.tenantId, 'admin');
    assert.equal((await call(stack.apiUrl, 'POST', '/auth/sessions/sign-out-all', { cookie: user.cookie })).status, 200);
    const live = await signIn(stack, user.email, user.password);
    const db = stack.infra.db;
    const auditBefore = await db('audit_log').where({ user_id: user.userId }).orderBy('id').select('id', 'action');
    assert.deepEqual(
      auditBefore.map((row) => row.action),
      ['session.signed_in', 'session.all_signed_out', 'session.signed_in'],
    );
    // The signed-out session ended 40 days ago (past RETENTION_HOUSEKEEPING's 30), with its last use.
    const old = new Date(Date.now() - 40 * DAY);
    await db('sessions').where({ user_id: user.userId }).whereNotNull('revoked_at').update({ revoked_at: old, last_seen_at: old });

    const result = await stack.services.retention.run();
    assert.ok(result.endedSessionsDeleted >= 1);
    const left = await db('sessions').where({ user_id: user.userId }).select('revoked_at');
    assert.deepEqual(left, [{ revoked_at: null }]);
    assert.equal((await call(stack.apiUrl, 'GET', '/auth/session', { cookie: live })).status, 200);
    assert.deepEqual(await db('audit_log').where({ user_id: user.userId }).orderBy('id').select('id', 'action'), auditBefore);
    assert.ok(await db('dashboard_users').where({ id: user.userId }).first());
  });

  it('deletes balance sweep runs that moved nothing after RETENTION_BALANCE_SWEEP_RUNS, and keeps settled ones', async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    const outcomes = ['settled', 'nothing_to_move', 'paused', 'refused'] as const;
    await stack.infra.db('balance_sweep_runs').insert(
      outcomes.map((outcome, index) => ({
        id: uuidv7(),
        tenant_id: tenant.tenantId,
        account_id: account.ID,
        period: `2026-12-0${index + 1}`,
        outcome,
        reason: outcome === 'settled' ? null : 'as the test set it',
        merchant_tx_ref: outcome === 'settled' ? `mtx_${randomUUID()}` : null,
        amount: outcome === 'settled' || outcome === 'refused' ? '100000' : null,
      })),
    );
    const left = () => stack.infra.db('balance_sweep_runs').where({ account_id: account.ID }).orderBy('period').pluck('outcome');

    // 60 days on, within the 90 kept: every run stays.
    await stack.services.retention.run({ now: new Date(Date.now() + 60 * DAY) });
    assert.deepEqual(await left(), [...outcomes]);
    const result = await stack.services.retention.run({ now: new Date(Date.now() + 100 * DAY) });
    assert.ok(result.unsettledBalanceSweepRunsDeleted >= 3);
    assert.deepEqual(await left(), ['settled']);
  });

  it('runs on a Temporal Schedule whose id is derived from the task queue', async () => {
    const client = stack.infra.temporal;
    const scheduleId = await ensurePeriodicSchedule(client, stack.config.TEMPORAL_TASK_QUEUE, {
      ...periodicSchedules(stack.config).retention,
      intervalMs: 3_600_000,
    });
    assert.equal(scheduleId, `retention:${stack.config.TEMPORAL_TASK_QUEUE}`);
    const handle = client.schedule.getHandle(scheduleId);
    try {
      await handle.trigger();
      const action = await eventually(async () => (await handle.describe()).info.recentActions[0], { what: 'the triggered run' });
      const result = await client.workflow.getHandle(action.action.workflow.workflowId).result();
      assert.deepEqual(Object.keys(result).sort(), [
        'endedSessionsDeleted',
        'eventPayloadsStripped',
        'startedJobsDeleted',
        'unsettledBalanceSweepRunsDeleted',
        'unverifiedEventsDeleted',
      ]);
    } finally {
      await handle.delete().catch(() => undefined);
    }
  });
});
