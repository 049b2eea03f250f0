/**
 * How workflows pace their calls to the provider. Pure: workflow code imports it. Every loop waits
 * its current delay (at least the provider's Retry-After), then grows it ×1.5 up to a cap, so even a
 * 1 s interval makes about ten calls in the first minute and one a minute after that.
 */

/** Cap of the back-off while a payout is in flight or the provider is unreachable. */
export const MAX_PROVIDER_BACKOFF_MS = 60_000;

/** Cap of the back-off of the refund watch after success (refunds are rare and webhooks announce them). */
export const MAX_REFUND_WATCH_BACKOFF_MS = 60 * 60_000;

/** Longest Retry-After obeyed; a larger one is treated as this. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

export interface Pace {
  /** How long to wait now. */
  waitMs: number;
  /** The delay to use next time. */
  nextDelayMs: number;
}

export function pace(delayMs: number, capMs: number, retryAfterMs?: number): Pace {
  const waitMs = Math.max(1, delayMs, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
  // A configured interval above the cap is kept, never shortened.
  return { waitMs, nextDelayMs: Math.max(delayMs, Math.min(Math.round(delayMs * 1.5), capMs)) };
}
