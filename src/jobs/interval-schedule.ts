import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';

/** Creates (or updates) a Schedule that starts `workflowType` every `intervalMs`, skipping a run while one is open. */
export async function ensureIntervalSchedule(client: Client, options: { scheduleId: string; workflowType: string; taskQueue: string; intervalMs: number }): Promise<string> {
  const spec = { intervals: [{ every: options.intervalMs }] };
  const action = { type: 'startWorkflow' as const, workflowType: options.workflowType, taskQueue: options.taskQueue, args: [] };
  try {
    await client.schedule.create({ scheduleId: options.scheduleId, spec, action, policies: { overlap: ScheduleOverlapPolicy.SKIP } });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(options.scheduleId).update((previous) => ({ ...previous, spec, action }));
  }
  return options.scheduleId;
}
