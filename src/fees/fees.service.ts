import type { Config } from '../config';
import type { Db } from '../db';
import { AppError, invalidAmount, ValidationError } from '../errors';
import type { Kobo } from '../money';
import { quoteFor, scheduleProblems, type FeeQuote, type FeeTier } from './fee-schedule';
import { createFeesRepo } from './fees.repo';

/**
 * Quotes read the schedule from the table every time: one indexed read of a few rows, and a change
 * made by `fees:set` (from any process) applies to the very next quote.
 */
export function createFeesService(deps: { db: Db; config: Pick<Config, 'MAX_AMOUNT'> }) {
  const { db, config } = deps;
  const repo = createFeesRepo(db);

  return {
    async quote(receive: Kobo): Promise<FeeQuote> {
      if (receive > config.MAX_AMOUNT) throw invalidAmount();
      const quote = quoteFor(await repo.listTiers(), receive);
      if (!quote)
        throw new AppError('unprocessable', 'amount_unreachable', 'no send amount lands exactly this amount under the current fee tiers');
      return quote;
    },

    tiers(): Promise<FeeTier[]> {
      return repo.listTiers();
    },

    async replaceTiers(tiers: readonly FeeTier[]): Promise<void> {
      const problems = scheduleProblems(tiers);
      if (problems.length > 0) throw new ValidationError(`invalid fee schedule: ${problems.join('; ')}`);
      await db.transaction((trx) => createFeesRepo(trx).replaceTiers(tiers));
    },
  };
}

export type FeesService = ReturnType<typeof createFeesService>;
