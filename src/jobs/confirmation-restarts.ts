import type { Db } from '../db';
import { isUuid } from '../ids';
import { createPaymentCreditsRepo } from '../payments/payment-credits.repo';
import { entryIdOfConfirmation } from '../temporal/workflow-ids';
import type { Jobs } from './jobs';
import type { RestartPlan } from './workflow-restarts';

/**
 * Confirmations whose run stopped while their credit is still provisional. The new run is built from
 * the credit; its posting time keeps the original window, so a restart never extends it.
 */
export function confirmationRestartPlan(deps: { db: Db; jobs: Jobs; windowMs: number }): RestartPlan {
  const { db, jobs, windowMs } = deps;
  const credits = createPaymentCreditsRepo(db);
  return {
    workflowType: 'paymentConfirmationWorkflow',
    watermark: 'confirmation-restarts',
    keyOf(workflowId) {
      const entryId = entryIdOfConfirmation(workflowId);
      return entryId !== null && isUuid(entryId) ? entryId : null;
    },
    async stillOpen(entryIds) {
      return (await credits.listProvisional(entryIds, windowMs)).map((credit) =>
        jobs.paymentConfirmation({
          entryId: credit.entryId,
          providerTxnRef: credit.providerTxnRef,
          gross: credit.gross,
          tenantId: credit.tenantId,
          accountRef: credit.accountRef,
          postedAt: credit.postedAt,
        }),
      );
    },
  };
}
