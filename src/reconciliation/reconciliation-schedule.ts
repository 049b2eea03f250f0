import type { Client } from '@temporalio/client';
import { ensureIntervalSchedule } from '../workflow-starts/interval-schedule';
import { type ReconciliationInput, reconciliationScheduleId } from '../contracts/reconciliation.contract';

interface ReconciliationScheduleOptions {
  taskQueue: string;
  intervalMs: number;
  lookBackMs: number;
  graceMs: number;
  providerAttempts: number;
}

/**
 * Creates (or updates) the Schedule of platform runs for this task queue: every interval, the last
 * look-back window ending the grace period ago. Overlapping windows are harmless (a run repairs only
 * what is still unrepaired); a run still going when the next is due makes that one skip, and one
 * missed during an outage is not started late (the next covers its window).
 */
export function ensureReconciliationSchedule(client: Client, options: ReconciliationScheduleOptions): Promise<string> {
  const input: ReconciliationInput = {
    lookBackMs: options.lookBackMs,
    graceMs: options.graceMs,
    providerAttempts: options.providerAttempts,
  };
  return ensureIntervalSchedule(client, {
    scheduleId: reconciliationScheduleId(options.taskQueue),
    workflowType: 'reconciliationWorkflow',
    taskQueue: options.taskQueue,
    intervalMs: options.intervalMs,
    args: [input],
    catchupWindow: '1 minute',
  });
}
