import { Context } from '@temporalio/activity';
import type { DynamicAccountsService } from '../src/dynamic-accounts/dynamic-accounts.service';
import type { DynamicAccountReturnsResult } from '../src/contracts/dynamic-account-returns.contract';
import type { Logger } from '../src/logger';

/**
 * How long one run may return payments: well inside the activity's heartbeat and start-to-close timeouts; what is
 * left is the next run's.
 */
export const RETURNS_BUDGET_MS = 45_000;

export function createDynamicAccountActivities(deps: { dynamicAccounts: Pick<DynamicAccountsService, 'returnDue'>; logger: Logger }) {
  const { dynamicAccounts, logger } = deps;
  return {
    /**
     * Pays back the mismatched payments dynamic accounts hold to return. Retried after a crash, it pays none twice:
     * each return is claimed in the database and the hold is returned in the payout's transaction.
     */
    async returnMismatchedPayments(): Promise<DynamicAccountReturnsResult> {
      const context = Context.current();
      const result = await dynamicAccounts.returnDue({
        budgetMs: RETURNS_BUDGET_MS,
        signal: context.cancellationSignal,
        onProgress: () => context.heartbeat(),
      });
      if (result.found > 0) logger.info(result, 'dynamic-account returns taken up');
      return result;
    },
  };
}

export type DynamicAccountActivities = ReturnType<typeof createDynamicAccountActivities>;
