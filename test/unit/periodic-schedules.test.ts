import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config';
import { periodicSchedules } from '../../src/workflow-starts/periodic-schedules';
import * as workflows from '../../workflows';
import { DEVELOPMENT_SETTINGS } from '../helpers/config';

describe('the periodic jobs: one registry of Schedules', () => {
  const config = loadConfig({ ...DEVELOPMENT_SETTINGS, TEMPORAL_TASK_QUEUE: 'ledger' });
  const schedules = Object.values(periodicSchedules(config));

  it('each starts a workflow the worker registers, under an id of its own', () => {
    for (const schedule of schedules)
      assert.ok(schedule.workflowType in workflows, `${schedule.workflowType} is not exported by workflows/`);
    assert.equal(new Set(schedules.map((schedule) => schedule.scheduleId)).size, schedules.length);
  });

  it('keeps the ids the Schedules already have, returns mismatched payments every DYNAMIC_ACCOUNT_RETURNS_INTERVAL (10 s by default) and expires reservations every RESERVATION_EXPIRY_INTERVAL (1 min)', () => {
    assert.deepEqual(
      schedules.map((schedule) => [schedule.scheduleId, schedule.workflowType, schedule.intervalMs]),
      [
        ['convergence-sweep:ledger', 'convergenceSweepWorkflow', 60_000],
        ['retention:ledger', 'retentionWorkflow', 3_600_000],
        ['reconciliation:ledger', 'reconciliationWorkflow', 3_600_000],
        ['dynamic-account-returns:ledger', 'dynamicAccountReturnsWorkflow', 10_000],
        ['reservation-expiry:ledger', 'reservationExpiryWorkflow', 60_000],
      ],
    );
  });

  it('refuses a returns interval below a second', () => {
    assert.throws(
      () => loadConfig({ ...DEVELOPMENT_SETTINGS, DYNAMIC_ACCOUNT_RETURNS_INTERVAL: '500ms' }),
      /DYNAMIC_ACCOUNT_RETURNS_INTERVAL/,
    );
  });
});
