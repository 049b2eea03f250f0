import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleSpec,
} from '@temporalio/client';
import type { Config } from '../config';
import type { Db } from '../db';
import type { Logger } from '../logger';
import { ACCOUNT_REF, TENANT_ID } from '../contracts/search-attributes';
import { balanceSweepScheduleId, type BalanceSweepInput } from '../contracts/balance-sweep.contract';
import { findAccountById } from '../accounts/accounts.access';
import { isTemporalUnreachableError } from '../temporal/client';
import { createBalanceSweepsRepo, type BalanceSweepRecord } from './balance-sweeps.repo';
import { SWEEP_TIME_ZONE } from './balance-sweep-period';

/** A call to Temporal gives up after this (the row stays unscheduled for the next pass). */
const TEMPORAL_DEADLINE_MS = 10_000;
/** Pushes of one sweep while its changes keep coming during them; then the worker's next pass takes it. */
const SYNC_ATTEMPTS = 3;

/**
 * How late a missed run may still start (Temporal down at the time): a daily sweep the same working day,
 * a threshold check only within its own slot (the next slot's check covers it).
 */
const DAILY_CATCHUP_WINDOW = '6 hours';

/**
 * Brings each account's Temporal Schedule in line with its sweep in Postgres, the source of truth. A
 * change commits first (its `version` moves on) and is pushed to Temporal after the commit; what could
 * not be pushed (Temporal down, a crash between) is pushed by the worker's loop (`syncPending`), so a
 * sweep set or deleted during an outage reaches Temporal when it is back. A push holds nothing in
 * Postgres while it waits on Temporal (a change to the sweep never waits for one), and a version is
 * marked pushed only while it is the latest (see `sync`), so a slow push of an older version never
 * leaves the Schedule behind the sweep.
 */
export function createBalanceSweepSchedules(deps: {
  db: Db;
  client: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'BALANCE_SWEEP_CHECK_INTERVAL'>;
  logger: Logger;
}) {
  const { db, client, config, logger } = deps;
  const sweeps = createBalanceSweepsRepo(db);
  const withDeadline = <T>(call: () => Promise<T>): Promise<T> => client.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, call);

  function specOf(sweep: BalanceSweepRecord): ScheduleSpec {
    if (sweep.dailyAt === null) return { intervals: [{ every: config.BALANCE_SWEEP_CHECK_INTERVAL }] };
    const [hour, minute] = sweep.dailyAt.split(':').map(Number) as [number, number];
    return { calendars: [{ hour, minute, comment: `daily at ${sweep.dailyAt} ${SWEEP_TIME_ZONE}` }], timezone: SWEEP_TIME_ZONE };
  }

  async function putSchedule(sweep: BalanceSweepRecord, accountRef: string): Promise<void> {
    const scheduleId = balanceSweepScheduleId(sweep.accountId);
    const input: BalanceSweepInput = { tenantId: sweep.tenantId, accountId: sweep.accountId };
    const spec = specOf(sweep);
    const action: ScheduleOptionsAction = {
      type: 'startWorkflow',
      workflowType: 'balanceSweepWorkflow',
      workflowId: scheduleId,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [input],
      typedSearchAttributes: [
        { key: TENANT_ID, value: sweep.tenantId },
        { key: ACCOUNT_REF, value: accountRef },
      ],
    };
    const policies = {
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: sweep.dailyAt === null ? config.BALANCE_SWEEP_CHECK_INTERVAL : DAILY_CATCHUP_WINDOW,
    };
    try {
      await withDeadline(() => client.schedule.create({ scheduleId, spec, action, policies }));
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      await withDeadline(() =>
        client.schedule
          .getHandle(scheduleId)
          .update((previous) => ({ ...previous, spec, action, policies: { ...previous.policies, ...policies } })),
      );
    }
  }

  async function removeSchedule(accountId: string): Promise<void> {
    try {
      await withDeadline(() => client.schedule.getHandle(balanceSweepScheduleId(accountId)).delete());
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
  }

  /** Makes the Schedule what the sweep's row says: as set, or gone for a deleted sweep. */
  async function push(sweep: BalanceSweepRecord): Promise<void> {
    if (sweep.deletedAt) return removeSchedule(sweep.accountId);
    const account = await findAccountById(db, sweep.accountId);
    if (!account) throw new Error(`balance sweep of account ${sweep.accountId}, which does not exist`);
    return putSchedule(sweep, account.accountRef);
  }

  /**
   * Pushes the sweep's latest version to Temporal, holding no transaction or lock while Temporal answers:
   * the version pushed is marked only while it is still the latest. When a change committed during the
   * push, this push may have landed after that change's own: the sweep is counted as changed again and
   * pushed once more, so the last push is always of the latest version. After SYNC_ATTEMPTS such changes
   * it is left unscheduled for the worker's next pass.
   */
  async function sync(accountId: string): Promise<void> {
    for (let attempt = 1; attempt <= SYNC_ATTEMPTS; attempt += 1) {
      const sweep = await sweeps.findAny(accountId);
      if (!sweep || sweep.version === sweep.scheduleVersion) return;
      await push(sweep);
      if (await sweeps.markScheduled(accountId, sweep.version)) return;
      await sweeps.markReschedule(accountId);
    }
  }

  /** The last sweep a pass dealt with: the next pass goes on after it, so sweeps that keep failing never hold the others back. */
  let passedUpTo: string | null = null;

  return {
    sync,

    /**
     * Pushes the sweep as its row stands, whatever version Temporal was last given: the Schedule is made again on this
     * cell's task queue (a tenant moved here, its Schedule removed where it was).
     */
    async pushNow(accountId: string): Promise<void> {
      const sweep = await sweeps.findAny(accountId);
      if (sweep) await push(sweep);
    },

    /** Removes the account's Schedule, leaving its sweep's row as it is (a tenant moving away). */
    unschedule: removeSchedule,

    /** After a commit: pushes the change at once, in the background; the worker's loop pushes it if this cannot. */
    kick(accountId: string): void {
      sync(accountId).catch((error: unknown) =>
        logger.warn({ err: error, accountId }, 'balance sweep schedule not updated now; the worker will bring it in line'),
      );
    },

    /**
     * Pushes up to `limit` sweeps whose Schedule has not followed their last change, going round them in
     * account order from where the last pass stopped. A sweep whose push fails is logged and left for a
     * later pass; the pass stops (throws) only when Temporal cannot be reached, and the next starts at that sweep.
     */
    async syncPending(limit = 100): Promise<{ found: number; synced: number; failed: number }> {
      const pending = await sweeps.unscheduled(limit, passedUpTo);
      let synced = 0;
      for (const accountId of pending) {
        try {
          await sync(accountId);
          synced += 1;
        } catch (error) {
          if (isTemporalUnreachableError(error)) throw error;
          logger.warn({ err: error, accountId }, 'balance sweep schedule not brought in line; a later pass tries again');
        }
        passedUpTo = accountId;
      }
      if (pending.length < limit) passedUpTo = null;
      return { found: pending.length, synced, failed: pending.length - synced };
    },
  };
}

export type BalanceSweepSchedules = ReturnType<typeof createBalanceSweepSchedules>;
