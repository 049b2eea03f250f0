import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { ReconciliationInput } from './reconciliation.payloads';
import { reconciliationScheduleId } from '../temporal/workflow-ids';

export interface ReconciliationScheduleOptions {
  taskQueue: string;
  intervalMs: number;
  lookBackMs: number;
  graceMs: number;
  providerAttempts: number;
}

/**
 * Creates (or updates) the Schedule of platform runs for this task queue: every interval, the last
 * look-back window ending the grace period ago. Overlapping windows are harmless (a run repairs only
 * what is still unrepaired); a run still going when the next is due makes that one skip.
 */
export async function ensureReconciliationSchedule(client: Client, options: ReconciliationScheduleOptions): Promise<string> {
  const scheduleId = reconciliationScheduleId(options.taskQueue);
  const input: ReconciliationInput = { lookBackMs: options.lookBackMs, graceMs: options.graceMs, providerAttempts: options.providerAttempts };
  const spec = { intervals: [{ every: options.intervalMs }] };
  const action = { type: 'startWorkflow' as const, workflowType: 'reconciliationWorkflow', taskQueue: options.taskQueue, args: [input] };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action, policies: { ...previous.policies, ...policies } }));
  }
  return scheduleId;
}
