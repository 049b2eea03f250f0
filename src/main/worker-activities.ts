import type { Services } from './container';
import type { Logger } from '../logger';
import { createBalanceSweepActivities } from '../../activities/balance-sweeps.activities';
import { createDynamicAccountActivities } from '../../activities/dynamic-accounts.activities';
import { createPaymentActivities } from '../../activities/payments.activities';
import { createReconciliationActivities } from '../../activities/reconciliation.activities';
import { createReservationActivities } from '../../activities/reservations.activities';
import { createScheduledPayoutActivities } from '../../activities/scheduled-payouts.activities';
import { createSettlementBatchActivities } from '../../activities/settlement-batches.activities';
import { createSettlementActivities } from '../../activities/settlements.activities';
import { createRetentionActivities } from '../../activities/retention.activities';
import { createConvergenceCheckActivities } from '../../activities/convergence-check.activities';
import { createWebhookActivities } from '../../activities/webhooks.activities';

export function createActivities(deps: { services: Services; logger: Logger; convergenceCheckGraceMs: number }) {
  const { services, logger, convergenceCheckGraceMs } = deps;
  return {
    ...createPaymentActivities({ batches: services.batchConfirmations }),
    ...createWebhookActivities({ deliveries: services.deliveries }),
    ...createSettlementActivities({ execution: services.settlementExecution }),
    ...createConvergenceCheckActivities({
      starter: services.starter,
      settlementRestarts: services.settlementRestarts,
      settlementBatchRestarts: services.settlementBatchRestarts,
      scheduledPayoutRestarts: services.scheduledPayoutRestarts,
      settlementWatch: services.settlementWatch,
      claimReleases: services.batchClaimReleases,
      graceMs: convergenceCheckGraceMs,
      logger,
    }),
    ...createRetentionActivities({ retention: services.retention, logger }),
    ...createReconciliationActivities({ reconciliation: services.reconciliationExecution }),
    ...createBalanceSweepActivities({ balanceSweeps: services.balanceSweeps }),
    ...createSettlementBatchActivities({ batchExecution: services.batchExecution }),
    ...createScheduledPayoutActivities({ scheduledPayouts: services.scheduledPayouts }),
    ...createDynamicAccountActivities({ dynamicAccounts: services.dynamicAccounts, logger }),
    ...createReservationActivities({
      db: services.db,
      ledger: services.ledger,
      heldPayouts: services.payoutApprovals,
      heldTransfers: services.internalTransfers,
      heldBatches: services.settlementBatches,
      logger,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
