import type { Services } from './container';
import type { Logger } from '../logger';
import { createBalanceSweepActivities } from '../../activities/balance-sweeps.activities';
import { createDynamicAccountActivities } from '../../activities/dynamic-accounts.activities';
import { createPaymentActivities } from '../../activities/payments.activities';
import { createReconciliationActivities } from '../../activities/reconciliation.activities';
import { createReservationActivities } from '../../activities/reservations.activities';
import { createSettlementBatchActivities } from '../../activities/settlement-batches.activities';
import { createSettlementActivities } from '../../activities/settlements.activities';
import { createRetentionActivities } from '../../activities/retention.activities';
import { createSweepActivities } from '../../activities/sweep.activities';
import { createWebhookActivities } from '../../activities/webhooks.activities';

export function createActivities(deps: { services: Services; logger: Logger; sweepGraceMs: number }) {
  const { services, logger, sweepGraceMs } = deps;
  return {
    ...createPaymentActivities({ batches: services.batchConfirmations }),
    ...createWebhookActivities({ deliveries: services.deliveries }),
    ...createSettlementActivities({ execution: services.settlementExecution }),
    ...createSweepActivities({
      starter: services.starter,
      settlementRestarts: services.settlementRestarts,
      settlementBatchRestarts: services.settlementBatchRestarts,
      settlementWatch: services.settlementWatch,
      claimReleases: services.batchClaimReleases,
      graceMs: sweepGraceMs,
      logger,
    }),
    ...createRetentionActivities({ retention: services.retention, logger }),
    ...createReconciliationActivities({ reconciliation: services.reconciliationExecution }),
    ...createBalanceSweepActivities({ balanceSweeps: services.balanceSweeps }),
    ...createSettlementBatchActivities({ batchExecution: services.batchExecution }),
    ...createDynamicAccountActivities({ dynamicAccounts: services.dynamicAccounts, logger }),
    ...createReservationActivities({ db: services.db, ledger: services.ledger, logger }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
