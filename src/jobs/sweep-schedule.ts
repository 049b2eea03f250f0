import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { convergenceSweepScheduleId } from '../temporal/workflow-ids';

/** Creates (or updates) the Schedule that runs the convergence sweep for this task queue. */
export async function ensureSweepSchedule(client: Client, options: { taskQueue: string; intervalMs: number }): Promise<string> {
  const scheduleId = convergenceSweepScheduleId(options.taskQueue);
  const spec = { intervals: [{ every: options.intervalMs }] };
  const action = { type: 'startWorkflow' as const, workflowType: 'convergenceSweepWorkflow', taskQueue: options.taskQueue, args: [] };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies: { overlap: ScheduleOverlapPolicy.SKIP } });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action }));
  }
  return scheduleId;
}
