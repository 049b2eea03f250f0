/** A token bucket: `perSecond` tokens a second, bursting to one second's worth. */
export function createRateLimiter(perSecond: number, clock: () => number = Date.now) {
  let tokens = perSecond;
  let refilledAt = clock();

  function refill(): void {
    const now = clock();
    tokens = Math.min(perSecond, tokens + ((now - refilledAt) / 1000) * perSecond);
    refilledAt = now;
  }

  return {
    /** Takes a token if one is there; never waits. */
    tryTake(): boolean {
      refill();
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },

    /** Waits for a token. */
    async take(): Promise<void> {
      for (;;) {
        refill();
        if (tokens >= 1) {
          tokens -= 1;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(((1 - tokens) / perSecond) * 1000)));
      }
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
