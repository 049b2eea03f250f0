import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';

export interface IntervalScheduleOptions {
  scheduleId: string;
  workflowType: string;
  taskQueue: string;
  intervalMs: number;
  /** The workflow's arguments (none by default). */
  args?: unknown[];
  /** How late a missed action may still start (Temporal's default: a year); later ones are skipped. */
  catchupWindow?: string;
}

/** Creates (or updates) a Schedule that starts `workflowType` every `intervalMs`, skipping a run while one is open. */
export async function ensureIntervalSchedule(client: Client, options: IntervalScheduleOptions): Promise<string> {
  const spec = { intervals: [{ every: options.intervalMs }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: options.workflowType,
    taskQueue: options.taskQueue,
    args: options.args ?? [],
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, ...(options.catchupWindow ? { catchupWindow: options.catchupWindow } : {}) };
  try {
    await client.schedule.create({ scheduleId: options.scheduleId, spec, action, policies });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule
      .getHandle(options.scheduleId)
      .update((previous) => ({ ...previous, spec, action, policies: { ...previous.policies, ...policies } }));
  }
  return options.scheduleId;
}
