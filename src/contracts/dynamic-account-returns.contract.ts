/**
 * The dynamic-account returns workflow's contract: its Schedule's id and what one run did. Workflow code imports
 * this module: types and pure functions only.
 */

export const dynamicAccountReturnsScheduleId = (taskQueue: string): string => `dynamic-account-returns:${taskQueue}`;

export interface DynamicAccountReturnsResult {
  /** Payments found due to be returned: each was returned, refused, left for a retry a minute later, or another worker's. */
  found: number;
}
