/**
 * The scheduled payout workflow's contract: one run per payout on a date, which waits (a durable timer) until the
 * payout's time and then has it made into its settlement, unless a cancel ended it first. Workflow code imports this
 * module: types, pure functions and the SDK's definition helpers only.
 */
import { defineSignal } from '@temporalio/workflow';
import type { WorkflowJob } from './workflow-job';

export interface ScheduledPayoutInput {
  merchantTxRef: string;
  tenantId: string;
  /** When the payout starts (RFC 3339, UTC). */
  scheduledFor: string;
}

/**
 * What became of the payout at its time: `started` (its settlement made, or made by an earlier attempt), `cancelled`
 * (cancelled before it started), `refused` (the settlement's debit refused it then: its money released).
 */
export type ScheduledPayoutEnd = 'started' | 'cancelled' | 'refused';

export const scheduledPayoutWorkflowId = (merchantTxRef: string): string => `scheduled-payout:${merchantTxRef}`;
/** The payout a workflow id names, or null for an id of another shape. */
export const merchantTxRefOfScheduledPayout = (workflowId: string): string | null =>
  workflowId.startsWith('scheduled-payout:') ? workflowId.slice('scheduled-payout:'.length) || null : null;

/**
 * The API wakes the run when the payout is cancelled (after the cancel's commit), so it ends at once rather than at the
 * payout's time; a run that misses it still ends without paying, as the start finds the payout cancelled.
 */
export const scheduledPayoutCancelledSignal = defineSignal('cancelled');

export function scheduledPayoutJob(input: {
  merchantTxRef: string;
  tenantId: string;
  accountRef: string;
  scheduledFor: Date;
}): WorkflowJob<'scheduledPayoutWorkflow', ScheduledPayoutInput> {
  return {
    workflowType: 'scheduledPayoutWorkflow',
    workflowId: scheduledPayoutWorkflowId(input.merchantTxRef),
    args: { merchantTxRef: input.merchantTxRef, tenantId: input.tenantId, scheduledFor: input.scheduledFor.toISOString() },
    searchAttributes: { TenantId: input.tenantId, AccountRef: input.accountRef, MerchantTxRef: input.merchantTxRef },
  };
}

/**
 * Money going out on a date: started with the settlements, and started again (it rebuilds from the database) after a
 * failed, terminated or timed-out run.
 */
export const SCHEDULED_PAYOUT_START_POLICY = { priority: 0, reusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' } as const;
