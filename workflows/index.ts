export { paymentConfirmationBatchWorkflow } from './payment-confirmation-batch.workflow';
export { settlementWorkflow } from './settlement.workflow';
export { settlementRefundWorkflow } from './settlement-refund.workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery.workflow';
export { convergenceSweepWorkflow } from './convergence-sweep.workflow';
export { reconciliationWorkflow } from './reconciliation.workflow';
export { retentionWorkflow } from './retention.workflow';
export { balanceSweepWorkflow } from './balance-sweep.workflow';
