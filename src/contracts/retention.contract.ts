/** The retention workflow's contract: its Schedule's id and what one pass removed. Workflow code imports this module. */

export const retentionScheduleId = (taskQueue: string): string => `retention:${taskQueue}`;

export interface RetentionResult {
  unverifiedEventsDeleted: number;
  eventPayloadsStripped: number;
  startedJobsDeleted: number;
  endedSessionsDeleted: number;
  unsettledBalanceSweepRunsDeleted: number;
}
