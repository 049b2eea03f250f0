import type { Client } from '@temporalio/client';
import { ensureIntervalSchedule } from './interval-schedule';
import { retentionScheduleId } from '../contracts/retention.contract';

/** Creates (or updates) the Schedule that runs the retention job for this task queue. */
export function ensureRetentionSchedule(client: Client, options: { taskQueue: string; intervalMs: number }): Promise<string> {
  return ensureIntervalSchedule(client, {
    scheduleId: retentionScheduleId(options.taskQueue),
    workflowType: 'retentionWorkflow',
    ...options,
  });
}
