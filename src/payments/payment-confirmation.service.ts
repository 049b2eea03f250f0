import { createAccountsRepo } from '../accounts/accounts.repo';
import type { Db } from '../db';
import type { PostingEngine } from '../ledger/posting-engine';
import type { Logger } from '../logger';
import type { ProviderClient } from '../provider/provider.types';
import { lookupProviderTransaction } from '../provider/transaction-lookup';
import type { ConfirmationOutcome, ProviderTxnLookup } from '../temporal/payloads';

/** Checks a provisional credit against the provider's records and confirms or reverses it. */
export function createPaymentConfirmationService(deps: { db: Db; provider: ProviderClient; postingEngine: PostingEngine; logger: Logger }) {
  const { db, provider, postingEngine, logger } = deps;

  return {
    lookup(transactionRef: string): Promise<ProviderTxnLookup> {
      return lookupProviderTransaction(provider, logger, transactionRef);
    },

    /** Confirms the credit; a one-time account whose expected amount this payment meets expires with it. */
    async confirm(entryId: string): Promise<ConfirmationOutcome> {
      return db.transaction(async (trx) => {
        const entry = await postingEngine.confirm(trx, entryId);
        if (!entry) return 'already_settled';
        const accounts = createAccountsRepo(trx);
        const account = await accounts.findById(entry.accountId);
        if (account?.expectedAmount !== null && account?.expectedAmount === entry.amount + entry.fee) await accounts.expire(account.id);
        return 'confirmed';
      });
    },

    async reverse(entryId: string, reason: string): Promise<ConfirmationOutcome> {
      const reversal = await db.transaction((trx) => postingEngine.reverse(trx, entryId, `reversal: ${reason}`));
      if (reversal) logger.info({ entryId, reason }, 'provisional credit reversed');
      return reversal ? 'reversed' : 'already_settled';
    },
  };
}

export type PaymentConfirmationService = ReturnType<typeof createPaymentConfirmationService>;
