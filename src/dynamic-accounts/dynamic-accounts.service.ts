import type { AccountsService } from '../accounts/accounts.service';
import type { Db } from '../db';
import { AppError } from '../errors';
import { recordChange } from '../events/change-events';
import type { HoldsService } from '../holds/holds.service';
import { paymentsToReturn, type PaymentToReturn } from '../ledger/ledger-reads';
import type { Logger } from '../logger';
import { createMismatchReturnsRepo } from './mismatch-returns.repo';

/** Payments one pass returns at most; a full pass goes again at once. */
const RETURNS_PER_PASS = 20;

/** Refusals that no retry changes: the payer's account cannot be paid by name, so an operator decides. */
const isRefusal = (error: unknown): error is AppError =>
  error instanceof AppError && error.kind !== 'provider_unavailable' && error.kind !== 'unavailable' && error.kind !== 'rate_limited';

/**
 * The sweep that keeps dynamic accounts' promises, run by the worker every few seconds (its state is the
 * database's, so it survives worker and Temporal restarts): it marks expired every account past its expiry
 * (never before: the database's clock decides), and pays back to its payer each confirmed payment an account
 * held to return, through the holds' return-to-sender path. A return the provider's name check or lookup
 * refuses is recorded with why and told (`payment.mismatch_held`); the money stays held in the held-money
 * queue for an operator. One that got no answer is tried again after a minute.
 */
export function createDynamicAccountsService(deps: {
  db: Db;
  accounts: Pick<AccountsService, 'expireDue'>;
  holds: HoldsService;
  logger: Logger;
}) {
  const { db, accounts, holds, logger } = deps;
  const returns = createMismatchReturnsRepo(db);

  async function returnPayment(payment: PaymentToReturn): Promise<void> {
    if (!(await returns.claim(payment))) return;
    try {
      await holds.returnHeldMismatch(payment.tenantId, payment.entryId, async (trx, { held, merchantTxRef }) => {
        await createMismatchReturnsRepo(trx).returned(payment.entryId, merchantTxRef);
        await recordChange(trx, {
          kind: 'mismatch_returned',
          tenantId: payment.tenantId,
          transactionGroupId: payment.transactionGroupId,
          accountRef: held.accountRef,
          amount: held.held,
          variance: payment.variance,
          merchantTxRef,
        });
      });
    } catch (error) {
      if (!isRefusal(error)) {
        logger.warn({ err: error, entryId: payment.entryId }, 'returning a mismatched payment failed; trying again later');
        return;
      }
      await db.transaction(async (trx) => {
        const held = await holds.heldMismatch(payment.tenantId, payment.entryId);
        await createMismatchReturnsRepo(trx).refused(payment.entryId, error.message);
        if (!held) return;
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
    /** One pass; `full` when there may be more to do at once. */
    async pass(): Promise<{ full: boolean }> {
      const expiry = await accounts.expireDue();
      const due = await paymentsToReturn(db, returns.unclaimedSql, RETURNS_PER_PASS);
      for (const payment of due) await returnPayment(payment);
      return { full: expiry.full || due.length >= RETURNS_PER_PASS };
    },
  };
}

export type DynamicAccountsService = ReturnType<typeof createDynamicAccountsService>;
