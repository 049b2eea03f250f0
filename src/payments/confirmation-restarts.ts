import type { Db } from '../db';
import { isUuid } from '../ids';
import type { Logger } from '../logger';
import { createConfirmationClaimsRepo } from './confirmation-claims.repo';
import { createPaymentCreditsRepo } from './payment-credits.repo';
import type { RestartPlan } from '../outbox/workflow-restarts';
import { entryIdOfConfirmation } from '../contracts/payment-confirmation.contract';

/**
 * Per-payment confirmations (runs from before batching) that stopped while their credit is still
 * provisional: each credit is queued for a batch confirmation (confirmation_claims), built from the
 * credit, whose posting time keeps the original window, so a restart never extends it. A credit
 * already queued stays as it is.
 */
export function confirmationRestartPlan(deps: { db: Db; logger: Logger }): RestartPlan {
  const { db, logger } = deps;
  const credits = createPaymentCreditsRepo(db);
  const claims = createConfirmationClaimsRepo(db);
  return {
    workflowType: 'paymentConfirmationWorkflow',
    watermark: 'confirmation-restarts',
    keyOf(workflowId) {
      const entryId = entryIdOfConfirmation(workflowId);
      return entryId !== null && isUuid(entryId) ? entryId : null;
    },
    async resume(entryIds) {
      const provisional = await credits.listProvisional(entryIds);
      try {
        const restarted = await claims.enqueue(
          provisional.map((credit) => ({ entryId: credit.entryId, tenantId: credit.tenantId, accountRef: credit.accountRef, providerTxnRef: credit.providerTxnRef, postedAt: credit.postedAt })),
        );
        return { restarted, failed: 0 };
      } catch (error) {
        logger.warn({ err: error, count: provisional.length }, 'could not queue stopped confirmations again; the next sweep will');
        return { restarted: 0, failed: provisional.length };
      }
    },
  };
}
