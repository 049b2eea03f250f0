import type { Client } from '@temporalio/client';
import { ensureIntervalSchedule } from './interval-schedule';
import { convergenceSweepScheduleId } from '../contracts/sweep.contract';

/** Creates (or updates) the Schedule that runs the convergence sweep for this task queue. */
export function ensureSweepSchedule(client: Client, options: { taskQueue: string; intervalMs: number }): Promise<string> {
  return ensureIntervalSchedule(client, {
    scheduleId: convergenceSweepScheduleId(options.taskQueue),
    workflowType: 'convergenceSweepWorkflow',
    ...options,
  });
}
