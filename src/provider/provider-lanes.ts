import { ProviderUnavailableError } from './errors';
import type { PaymentProvider } from './payment-provider';

/** A background call waits at most this long for the foreground's calls in flight to finish, so it is never starved. */
const YIELD_AT_MOST_MS = 2_000;
/** A background call waits out the provider's Retry-After only this long (well inside an activity's heartbeat timeout). */
const THROTTLE_WAIT_AT_MOST_MS = 30_000;
const POLL_MS = 20;

export interface ProviderLanes {
  /** Settlements, confirmations, provisioning, lookups: money moving now. Never waits. */
  foreground: PaymentProvider;
  /** Reconciliation: yields to the foreground, waits out the provider's throttling, a few calls at a time. */
  background: PaymentProvider;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Two ways into one provider over the shared credentials. The foreground goes straight through. A
 * background call starts only when fewer than `backgroundConcurrency` background calls are in flight,
 * the provider's last Retry-After (from any call of the process) has passed, and no foreground call is
 * in flight (waiting for that at most `yieldAtMostMs`, YIELD_AT_MOST_MS unless given). A background call is
 * made once: its caller counts every call the provider sees, so asking again is the caller's decision.
 */
export function createProviderLanes(
  provider: PaymentProvider,
  options: { backgroundConcurrency: number; yieldAtMostMs?: number },
): ProviderLanes {
  const yieldAtMostMs = options.yieldAtMostMs ?? YIELD_AT_MOST_MS;
  let foregroundInFlight = 0;
  let backgroundInFlight = 0;
  let throttledUntil = 0;

  function noteThrottling(error: unknown): void {
    if (error instanceof ProviderUnavailableError && error.retryAfterMs !== null)
      throttledUntil = Math.max(throttledUntil, Date.now() + error.retryAfterMs);
  }

  /** Makes the call, noting a throttling answer's Retry-After for the background; `finished` runs however it ends. */
  async function observed<T>(work: () => Promise<T>, finished: () => void): Promise<T> {
    try {
      return await work();
    } catch (error) {
      noteThrottling(error);
      throw error;
    } finally {
      finished();
    }
  }

  function foreground<T>(work: () => Promise<T>): Promise<T> {
    foregroundInFlight += 1;
    return observed(work, () => {
      foregroundInFlight -= 1;
    });
  }

  async function backgroundSlot(): Promise<void> {
    const yieldUntil = Date.now() + yieldAtMostMs;
    const throttleWaitUntil = Date.now() + THROTTLE_WAIT_AT_MOST_MS;
    for (;;) {
      const now = Date.now();
      const throttled = now < throttledUntil && now < throttleWaitUntil;
      const yielding = foregroundInFlight > 0 && now < yieldUntil;
      if (!throttled && !yielding && backgroundInFlight < options.backgroundConcurrency) break;
      await sleep(throttled ? Math.min(throttledUntil - now, throttleWaitUntil - now, 1_000) : POLL_MS);
    }
    backgroundInFlight += 1;
  }

  async function background<T>(work: () => Promise<T>): Promise<T> {
    await backgroundSlot();
    return observed(work, () => {
      backgroundInFlight -= 1;
    });
  }

  function lane(through: <T>(work: () => Promise<T>) => Promise<T>): PaymentProvider {
    return {
      createVirtualAccount: (input) => through(() => provider.createVirtualAccount(input)),
      getTransaction: (reference) => through(() => provider.getTransaction(reference)),
      submitTransfer: (input) => through(() => provider.submitTransfer(input)),
      listBanks: () => through(() => provider.listBanks()),
      lookupAccount: (input) => through(() => provider.lookupAccount(input)),
      listTransactions: (input) => through(() => provider.listTransactions(input)),
      getWalletBalance: () => through(() => provider.getWalletBalance()),
    };
  }

  return { foreground: lane(foreground), background: lane(background) };
}
