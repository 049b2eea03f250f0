import { ApplicationFailure } from '@temporalio/activity';
import {
  ProviderAmountMismatchError,
  SettlementNotFoundError,
  SettlementRuleError,
  type SettlementExecutionService,
} from '../src/settlements/settlement-execution.service';
import type {
  AttemptProgress,
  DestinationCheck,
  OverdueOutcome,
  OverdueReport,
  RefundCheck,
  SettlementWorkflowStatus,
  SubmissionResult,
} from '../src/contracts/settlement.contract';

/**
 * A missing settlement, a request the rules refuse, or a payout of the wrong amount will not change by
 * retrying: fail the activity for good (the workflow fails visibly; nothing was moved).
 */
async function nonRetryableWhenHopeless<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SettlementNotFoundError || error instanceof SettlementRuleError || error instanceof ProviderAmountMismatchError) {
      throw ApplicationFailure.nonRetryable(error.message, error.name);
    }
    throw error;
  }
}

/**
 * Provider outages come back as `unavailable` results (the workflow backs off, honouring Retry-After);
 * only infrastructure failures (database, worker) use the activity retry policy.
 */
export function createSettlementActivities(deps: { execution: SettlementExecutionService }) {
  const { execution } = deps;
  return {
    checkSettlementDestination(settlementId: string): Promise<DestinationCheck> {
      return nonRetryableWhenHopeless(() => execution.checkDestination(settlementId));
    },
    submitSettlementAttempt(settlementId: string, attemptNo: number): Promise<SubmissionResult> {
      return nonRetryableWhenHopeless(() => execution.submitAttempt(settlementId, attemptNo));
    },
    pollSettlementAttempt(settlementId: string, attemptNo: number): Promise<AttemptProgress> {
      return nonRetryableWhenHopeless(() => execution.pollAttempt(settlementId, attemptNo));
    },
    failSettlement(settlementId: string, reason: string): Promise<SettlementWorkflowStatus> {
      return nonRetryableWhenHopeless(() => execution.fail(settlementId, reason));
    },
    refundSettlement(settlementId: string, providerRef: string): Promise<RefundCheck> {
      return nonRetryableWhenHopeless(() => execution.refund(settlementId, providerRef));
    },
    reportOverdueSettlement(settlementId: string, attemptNo: number, report: OverdueReport): Promise<OverdueOutcome> {
      return nonRetryableWhenHopeless(() => execution.reportOverdue(settlementId, attemptNo, report));
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
