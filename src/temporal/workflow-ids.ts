/** Workflow ids are business keys: starting one that already ran is a no-op, never a second job. */
export const settlementWorkflowId = (merchantTxRef: string): string => `settlement:${merchantTxRef}`;
export const settlementRefundWorkflowId = (merchantTxRef: string): string => `settlement-refund:${merchantTxRef}`;
export const paymentConfirmationWorkflowId = (entryId: string): string => `payment-confirmation:${entryId}`;
export const webhookDeliveryWorkflowId = (deliveryId: string): string => `webhook-delivery:${deliveryId}`;
export const convergenceSweepScheduleId = (taskQueue: string): string => `convergence-sweep:${taskQueue}`;
export const reconciliationWorkflowId = (runId: string): string => `reconciliation:${runId}`;
export const reconciliationScheduleId = (taskQueue: string): string => `reconciliation:${taskQueue}`;
