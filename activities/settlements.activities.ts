import { ApplicationFailure } from '@temporalio/activity';
import { SettlementNotFoundError, type SettlementExecutionService } from '../src/settlements/settlement-execution.service';
import type { DestinationCheck, ProviderTxnLookup, SettlementWorkflowStatus, SubmissionResult } from '../src/temporal/payloads';

/** A missing settlement will not appear by retrying: fail the workflow task's activity for good. */
async function nonRetryableWhenMissing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SettlementNotFoundError) throw ApplicationFailure.nonRetryable(error.message, 'SettlementNotFound');
    throw error;
  }
}

export function createSettlementActivities(deps: { execution: SettlementExecutionService }) {
  const { execution } = deps;
  return {
    checkSettlementDestination(settlementId: string): Promise<DestinationCheck> {
      return nonRetryableWhenMissing(() => execution.checkDestination(settlementId));
    },
    submitSettlementAttempt(settlementId: string, attemptNo: number): Promise<SubmissionResult> {
      return nonRetryableWhenMissing(() => execution.submitAttempt(settlementId, attemptNo));
    },
    lookupTransferStatus(providerRef: string): Promise<ProviderTxnLookup> {
      return execution.lookup(providerRef);
    },
    markSettlementAttemptFailed(settlementId: string, attemptNo: number, reason: string): Promise<void> {
      return nonRetryableWhenMissing(() => execution.markAttemptFailed(settlementId, attemptNo, reason));
    },
    completeSettlement(settlementId: string, attemptNo: number, providerFeeKobo: string | null): Promise<SettlementWorkflowStatus> {
      return nonRetryableWhenMissing(() => execution.complete(settlementId, attemptNo, providerFeeKobo));
    },
    failSettlement(settlementId: string, reason: string): Promise<SettlementWorkflowStatus> {
      return nonRetryableWhenMissing(() => execution.fail(settlementId, reason));
    },
    refundSettlement(settlementId: string, reason: string): Promise<SettlementWorkflowStatus> {
      return nonRetryableWhenMissing(() => execution.refund(settlementId, reason));
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
