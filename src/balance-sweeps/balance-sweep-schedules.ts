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
import { createBalanceSweepsRepo, type BalanceSweepRecord } from './balance-sweeps.repo';
import { SWEEP_TIME_ZONE } from './balance-sweep-period';

/** A call to Temporal gives up after this (the row stays unscheduled for the next pass). */
const TEMPORAL_DEADLINE_MS = 10_000;

/**
 * How late a missed run may still start (Temporal down at the time): a daily sweep the same working day,
 * a threshold check only within its own slot (the next slot's check covers it).
 */
const DAILY_CATCHUP_WINDOW = '6 hours';

/**
 * Brings each account's Temporal Schedule in line with its sweep in Postgres, the source of truth. A
 * change commits first (its `version` moves on) and is pushed to Temporal after the commit; what could
 * not be pushed (Temporal down, a crash between) is pushed by the worker's loop (`syncPending`), so a
 * sweep set or deleted during an outage reaches Temporal when it is back. Each push holds the sweep's
 * row lock, so two processes never push one sweep's versions out of order.
 */
export function createBalanceSweepSchedules(deps: {
  db: Db;
  client: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'BALANCE_SWEEP_CHECK_INTERVAL'>;
  logger: Logger;
}) {
  const { db, client, config, logger } = deps;
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

  /** Pushes the sweep's latest version to Temporal; false when another process holds it (it is pushing it now). */
  async function sync(accountId: string): Promise<boolean> {
    return db.transaction(async (trx) => {
      const sweeps = createBalanceSweepsRepo(trx);
      const sweep = await sweeps.lockForSchedule(accountId);
      if (!sweep) return false;
      if (sweep.version === sweep.scheduleVersion) return true;
      if (sweep.deletedAt) {
        await removeSchedule(accountId);
        await sweeps.removeDeleted(accountId, sweep.version);
      } else {
        const account = await findAccountById(trx, accountId);
        await putSchedule(sweep, account!.accountRef);
        await sweeps.markScheduled(accountId, sweep.version);
      }
      return true;
    });
  }

  return {
    sync,

    /** After a commit: pushes the change at once, in the background; the worker's loop pushes it if this cannot. */
    kick(accountId: string): void {
      sync(accountId).catch((error: unknown) =>
        logger.warn({ err: error, accountId }, 'balance sweep schedule not updated now; the worker will bring it in line'),
      );
    },

    /** Pushes every sweep whose Schedule has not followed its last change; stops at the first failure (Temporal unreachable). */
    async syncPending(limit = 100): Promise<{ found: number; synced: number }> {
      const pending = await createBalanceSweepsRepo(db).unscheduled(limit);
      let synced = 0;
      for (const accountId of pending) if (await sync(accountId)) synced += 1;
      return { found: pending.length, synced };
    },
  };
}

export type BalanceSweepSchedules = ReturnType<typeof createBalanceSweepSchedules>;
