import type { Client } from '@temporalio/client';
import { batchPaymentQuery } from '../../workflows/payment-confirmation-batch.workflow';
import { eventually } from './http';

/**
 * Waits until the batch confirmation holding `providerTxnRef` has looked it up after its window ended and
 * kept it waiting: a lookup due past the deadline, then made, with no outcome. The moment a test of a
 * payment the provider shows PROCESSING checks that the credit is still provisional.
 */
export async function keptWaitingPastItsWindow(temporal: Client, providerTxnRef: string): Promise<void> {
  let lookupsBeforeOneDuePastTheWindow: number | undefined;
  await eventually(
    async () => {
      for await (const execution of temporal.workflow.list({
        query: `ProviderTxnRefs = '${providerTxnRef}' AND ExecutionStatus = 'Running'`,
      })) {
        const payment = await temporal.workflow.getHandle(execution.workflowId).query(batchPaymentQuery, providerTxnRef);
        if (!payment) continue;
        if (
          lookupsBeforeOneDuePastTheWindow === undefined &&
          payment.nextLookupAtMs !== null &&
          payment.nextLookupAtMs >= payment.deadlineMs
        )
          lookupsBeforeOneDuePastTheWindow = payment.lookups;
        return (
          lookupsBeforeOneDuePastTheWindow !== undefined && payment.lookups > lookupsBeforeOneDuePastTheWindow && payment.outcome === null
        );
      }
      return false;
    },
    { intervalMs: 250, what: `a lookup of ${providerTxnRef} past its window that keeps it waiting` },
  );
}
