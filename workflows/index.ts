export { paymentConfirmationBatchWorkflow } from './paymentConfirmationBatch.workflow';
export { settlementWorkflow } from './settlement.workflow';
export { settlementRefundWorkflow } from './settlementRefund.workflow';
export { webhookDeliveryWorkflow } from './webhookDelivery.workflow';
export { convergenceSweepWorkflow } from './convergenceSweep.workflow';
export { reconciliationWorkflow } from './reconciliation.workflow';
export { retentionWorkflow } from './retention.workflow';
