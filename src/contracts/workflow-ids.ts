/** Workflow ids are business keys: starting one that already ran is a no-op, never a second job. */
export const settlementWorkflowId = (merchantTxRef: string): string => `settlement:${merchantTxRef}`;
/** The merchantTxRef a settlement's workflow id names, or null for any other id. */
export const merchantTxRefOfSettlement = (workflowId: string): string | null => (workflowId.startsWith('settlement:') ? workflowId.slice('settlement:'.length) || null : null);
/** Per refund event: the attempt's reference and the provider's request id of the payout_refund event. */
export const settlementRefundWorkflowId = (providerRef: string, eventId: string): string => `settlement-refund:${providerRef}:${eventId}`;
export const paymentConfirmationWorkflowId = (entryId: string): string => `payment-confirmation:${entryId}`;
/** The entry id a confirmation's workflow id names, or null for any other id. */
export const entryIdOfConfirmation = (workflowId: string): string | null => (workflowId.startsWith('payment-confirmation:') ? workflowId.slice('payment-confirmation:'.length) : null);
/** A batch confirmation; its payments are found by the ProviderTxnRefs and AccountRefs search attributes. */
export const paymentConfirmationBatchWorkflowId = (batchId: string): string => `payment-confirmation-batch:${batchId}`;
export const webhookDeliveryWorkflowId = (deliveryId: string): string => `webhook-delivery:${deliveryId}`;
export const convergenceSweepScheduleId = (taskQueue: string): string => `convergence-sweep:${taskQueue}`;
export const reconciliationWorkflowId = (runId: string): string => `reconciliation:${runId}`;
export const reconciliationScheduleId = (taskQueue: string): string => `reconciliation:${taskQueue}`;
export const retentionScheduleId = (taskQueue: string): string => `retention:${taskQueue}`;
