import type { Db } from '../db';
import { AppError } from '../errors';
import { recordChange } from '../events/change-events';
import type { HoldsService } from '../kyc-limits/holds.service';
import type { Logger } from '../logger';
import { createMismatchReturnsRepo, type PaymentToReturn } from './mismatch-returns.repo';

/** Payments read at once; a full read is followed by another while the budget lasts. */
const RETURNS_PER_PASS = 20;

/** Refusals that no retry changes: the payer's account cannot be paid by name, so an operator decides. */
const isRefusal = (error: unknown): error is AppError =>
  error instanceof AppError && error.kind !== 'provider_unavailable' && error.kind !== 'unavailable' && error.kind !== 'rate_limited';

/** Thrown in a return's transaction when its claim is no longer this worker's, so that nothing of it commits. */
class ClaimLostError extends Error {
  constructor() {
    super('the return was claimed again by another worker');
    this.name = 'ClaimLostError';
  }
}

/**
 * The returns of dynamic accounts' mismatched payments, run by the returns Schedule's workflow (its state is the
 * database's, so it survives worker and Temporal restarts): each confirmed payment an account held to return is
 * paid back to its payer through the holds' return-to-sender path. A return the provider's name check or lookup
 * refuses is recorded with why and told (`payment.mismatch_held`); the money stays held in the held-money
 * queue for an operator. One that got no answer is tried again after a minute. A return whose money is no longer
 * held when it fails (another worker, or an operator, returned it or released it) is no refusal: the claim is let go.
 * A run that dies mid-return and is retried (a worker restart) pays nothing twice: the claim stays its own for a
 * minute, and the hold is returned in the payout's own transaction, so a payment once paid is never due again.
 */
export function createDynamicAccountsService(deps: { db: Db; holds: HoldsService; logger: Logger }) {
  const { db, holds, logger } = deps;
  const returns = createMismatchReturnsRepo(db);

  async function returnPayment(payment: PaymentToReturn): Promise<void> {
    const token = await returns.claim(payment);
    if (!token) return;
    try {
      // The ledger tells the return (`payment.mismatch_returned`) as it posts the hold, in the settlement's transaction.
      await holds.returnHeldMismatch(payment.tenantId, payment.entryId, async (trx, { merchantTxRef }) => {
        // Rolls the settlement back: another worker re-claimed this return after our claim ran out, and pays it.
        if (!(await createMismatchReturnsRepo(trx).returned(payment.entryId, token, merchantTxRef))) throw new ClaimLostError();
      });
    } catch (error) {
      if (error instanceof ClaimLostError) {
        logger.info({ entryId: payment.entryId }, 'another worker took over returning a mismatched payment');
        return;
      }
      if (!isRefusal(error)) {
        logger.warn({ err: error, entryId: payment.entryId }, 'returning a mismatched payment failed; trying again later');
        return;
      }
      const held = await holds.heldMismatch(payment.tenantId, payment.entryId);
      // No longer held (returned by another worker or an operator, or released): nothing is left to return or refuse.
      if (!held) return returns.dropped(payment.entryId, token);
      await db.transaction(async (trx) => {
        if (!(await createMismatchReturnsRepo(trx).refused(payment.entryId, token, error.message))) return;
        await recordChange(trx, {
          kind: 'mismatch_held',
          tenantId: payment.tenantId,
          transactionGroupId: payment.transactionGroupId,
          accountRef: held.accountRef,
          amount: held.held,
          variance: payment.variance,
          reason: error.message,
        });
      });
    }
  }

  return {
    /**
     * Returns the payments due to be returned, RETURNS_PER_PASS at a time, until none is left, `budgetMs` has
     * passed or `signal` aborts; `onProgress` after each payment. How many were found due: each one was returned,
     * refused, left for a retry or found to be another worker's (its record in dynamic_account_returns says which).
     */
    async returnDue(options: { budgetMs: number; signal?: AbortSignal; onProgress?: () => void }): Promise<{ found: number }> {
      const stopAt = Date.now() + options.budgetMs;
      let found = 0;
      for (;;) {
        const due = await returns.due(RETURNS_PER_PASS);
        for (const payment of due) {
          if (options.signal?.aborted) return { found };
          await returnPayment(payment);
          found += 1;
          options.onProgress?.();
        }
        if (due.length < RETURNS_PER_PASS || Date.now() >= stopAt) return { found };
      }
    },
  };
}

export type DynamicAccountsService = ReturnType<typeof createDynamicAccountsService>;
