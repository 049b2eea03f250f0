import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config';
import { dynamicAccountReturnsScheduleId } from '../contracts/dynamic-account-returns.contract';
import { type ReconciliationInput, reconciliationScheduleId } from '../contracts/reconciliation.contract';
import { reservationExpiryScheduleId } from '../contracts/reservation-expiry.contract';
import { retentionScheduleId } from '../contracts/retention.contract';
import { convergenceCheckScheduleId } from '../contracts/convergence-check.contract';

/** A job run on a clock: a Temporal Schedule starting `workflowType` with `args` every `intervalMs`, skipping a run while one is open. */
export interface PeriodicSchedule {
  /**
   * Per task queue, and kept as it is: under a new id the worker would create a second Schedule and leave the old
   * one starting the same work. To rename one, delete the old Schedule in the same change.
   */
  scheduleId: string;
  workflowType: string;
  intervalMs: number;
  args: unknown[];
  /** How late a missed run may still start (Temporal's default: a year); later ones are skipped. */
  catchupWindow?: string;
}

type ScheduleSettings = Pick<
  Config,
  | 'TEMPORAL_TASK_QUEUE'
  | 'SWEEP_INTERVAL'
  | 'RETENTION_INTERVAL'
  | 'RECONCILIATION_INTERVAL'
  | 'RECONCILIATION_LOOKBACK'
  | 'RECONCILIATION_GRACE'
  | 'RECONCILIATION_PROVIDER_ATTEMPTS'
  | 'DYNAMIC_ACCOUNT_RETURNS_INTERVAL'
  | 'RESERVATION_EXPIRY_INTERVAL'
>;

/**
 * Every job of the platform that runs on a clock, each a Temporal Schedule (in the UI under its id): the one
 * place a periodic job is declared. The worker ensures them all at start. Work that moves money on a clock runs
 * only here, never in the worker's in-process loops (those do housekeeping: see worker-loops.ts). Each account's
 * balance sweep has a Schedule of its own, kept in line with its row by src/balance-sweeps.
 */
export function periodicSchedules(config: ScheduleSettings) {
  const taskQueue = config.TEMPORAL_TASK_QUEUE;
  const reconciliation: ReconciliationInput = {
    lookBackMs: config.RECONCILIATION_LOOKBACK,
    graceMs: config.RECONCILIATION_GRACE,
    providerAttempts: config.RECONCILIATION_PROVIDER_ATTEMPTS,
  };
  return {
    /** The backstop of the worker's loops: starts left-behind workflows and restarts stopped confirmations and settlements. */
    convergenceCheck: {
      scheduleId: convergenceCheckScheduleId(taskQueue),
      workflowType: 'convergenceSweepWorkflow',
      intervalMs: config.SWEEP_INTERVAL,
      args: [],
    },
    /** Keeps raw payloads and operational tables within their retention. */
    retention: {
      scheduleId: retentionScheduleId(taskQueue),
      workflowType: 'retentionWorkflow',
      intervalMs: config.RETENTION_INTERVAL,
      args: [],
    },
    /**
     * Platform runs: every interval, the last look-back window ending the grace period ago. Overlapping windows are
     * harmless (a run repairs only what is still unrepaired); a run missed during an outage is not started late
     * (the next covers its window).
     */
    reconciliation: {
      scheduleId: reconciliationScheduleId(taskQueue),
      workflowType: 'reconciliationWorkflow',
      intervalMs: config.RECONCILIATION_INTERVAL,
      args: [reconciliation],
      catchupWindow: '1 minute',
    },
    /** Pays back the mismatched payments dynamic accounts hold to return; a missed run is not made up (the next takes all that is due). */
    dynamicAccountReturns: {
      scheduleId: dynamicAccountReturnsScheduleId(taskQueue),
      workflowType: 'dynamicAccountReturnsWorkflow',
      intervalMs: config.DYNAMIC_ACCOUNT_RETURNS_INTERVAL,
      args: [],
      catchupWindow: '1 minute',
    },
    /**
     * Releases, as expired, the reservations whose expiry has passed (the account may spend the money again); a missed
     * run is not made up (the next expires all that is due).
     */
    reservationExpiry: {
      scheduleId: reservationExpiryScheduleId(taskQueue),
      workflowType: 'reservationExpiryWorkflow',
      intervalMs: config.RESERVATION_EXPIRY_INTERVAL,
      args: [],
      catchupWindow: '1 minute',
    },
  } satisfies Record<string, PeriodicSchedule>;
}

export type PeriodicJob = keyof ReturnType<typeof periodicSchedules>;

/** Creates (or updates) the Schedule of one periodic job on `taskQueue`; its id. */
export async function ensurePeriodicSchedule(client: Client, taskQueue: string, schedule: PeriodicSchedule): Promise<string> {
  const spec = { intervals: [{ every: schedule.intervalMs }] };
  const action = { type: 'startWorkflow' as const, workflowType: schedule.workflowType, taskQueue, args: schedule.args };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, ...(schedule.catchupWindow ? { catchupWindow: schedule.catchupWindow } : {}) };
  try {
    await client.schedule.create({ scheduleId: schedule.scheduleId, spec, action, policies });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule
      .getHandle(schedule.scheduleId)
      .update((previous) => ({ ...previous, spec, action, policies: { ...previous.policies, ...policies } }));
  }
  return schedule.scheduleId;
}

/** Creates (or updates) the Schedules of `jobs` (every periodic job unless told); their ids. */
export async function ensurePeriodicSchedules(
  client: Client,
  config: ScheduleSettings,
  jobs: readonly PeriodicJob[] = Object.keys(periodicSchedules(config)) as PeriodicJob[],
): Promise<string[]> {
  const schedules = periodicSchedules(config);
  const ids: string[] = [];
  for (const job of jobs) ids.push(await ensurePeriodicSchedule(client, config.TEMPORAL_TASK_QUEUE, schedules[job]));
  return ids;
}
