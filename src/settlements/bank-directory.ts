import { ProviderOutageError } from '../errors';
import type { Logger } from '../logger';
import type { PaymentProvider } from '../provider/payment-provider';
import type { ProviderBank } from '../provider/provider.types';

/**
 * The provider's bank list, cached for `ttlMs`. A failed refresh keeps serving the last good list;
 * only with no list at all does a caller see "provider unavailable".
 */
export function createBankDirectory(deps: { provider: PaymentProvider; logger: Logger; ttlMs: number }) {
  const { provider, logger, ttlMs } = deps;
  let banks: ProviderBank[] | null = null;
  let codes = new Set<string>();
  let fetchedAt = 0;
  let refreshing: Promise<void> | null = null;

  async function refresh(): Promise<void> {
    try {
      const fresh = await provider.listBanks();
      banks = fresh;
      codes = new Set(fresh.map((bank) => bank.code));
      fetchedAt = Date.now();
    } catch (error) {
      logger.warn({ err: error }, 'could not refresh the bank list');
      if (!banks) throw new ProviderOutageError();
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
