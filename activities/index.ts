import type { Services } from '../src/main/container';
import type { Logger } from '../src/logger';
import { createPaymentActivities } from './payments.activities';
import { createReconciliationActivities } from './reconciliation.activities';
import { createSettlementActivities } from './settlements.activities';
import { createRetentionActivities } from './retention.activities';
import { createSweepActivities } from './sweep.activities';
import { createWebhookActivities } from './webhooks.activities';

export function createActivities(deps: { services: Services; logger: Logger; sweepGraceMs: number }) {
  const { services, logger, sweepGraceMs } = deps;
  return {
    ...createPaymentActivities({ confirmations: services.confirmations, batches: services.batchConfirmations }),
    ...createWebhookActivities({ deliveries: services.deliveries }),
    ...createSettlementActivities({ execution: services.settlementExecution }),
    ...createSweepActivities({
      starter: services.starter,
      confirmationRestarts: services.confirmationRestarts,
      settlementRestarts: services.settlementRestarts,
      settlementWatch: services.settlementWatch,
      claimReleases: services.batchClaimReleases,
      graceMs: sweepGraceMs,
      logger,
    }),
    ...createRetentionActivities({ retention: services.retention, logger }),
    ...createReconciliationActivities({ reconciliation: services.reconciliationExecution }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
