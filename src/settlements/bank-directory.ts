import { ProviderOutageError } from '../errors';
import type { Logger } from '../logger';
import { clientRetryAfterSeconds, lookupWithRetries } from '../provider/lookup-retry';
import type { PaymentProvider } from '../provider/payment-provider';
import type { ProviderBank } from '../provider/provider.types';

/**
 * The provider's bank list, cached for `ttlMs`. A failed refresh keeps serving the last good list; with no
 * list at all the provider is asked again within `retryBudgetMs` (the caller waits for it), and only then
 * does a caller see "provider unavailable".
 */
export function createBankDirectory(deps: { provider: PaymentProvider; logger: Logger; ttlMs: number; retryBudgetMs: number }) {
  const { provider, logger, ttlMs, retryBudgetMs } = deps;
  let banks: ProviderBank[] | null = null;
  let codes = new Set<string>();
  let fetchedAt = 0;
  let refreshing: Promise<void> | null = null;

  async function refresh(): Promise<void> {
    try {
      const fresh = banks ? await provider.listBanks() : await lookupWithRetries(() => provider.listBanks(), { budgetMs: retryBudgetMs });
      banks = fresh;
      codes = new Set(fresh.map((bank) => bank.code));
      fetchedAt = Date.now();
    } catch (error) {
      logger.warn({ err: error }, 'could not refresh the bank list');
      if (!banks)
        throw error instanceof ProviderOutageError ? error : new ProviderOutageError(clientRetryAfterSeconds(null, retryBudgetMs));
    }
  }

  async function current(): Promise<ProviderBank[]> {
    if (!banks || Date.now() - fetchedAt > ttlMs) {
      refreshing ??= refresh().finally(() => {
        refreshing = null;
      });
      await refreshing;
    }
    return banks!;
  }

  return {
    list: current,
    async has(code: string): Promise<boolean> {
      await current();
      return codes.has(code);
    },
  };
}

export type BankDirectory = ReturnType<typeof createBankDirectory>;
