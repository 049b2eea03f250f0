import { ProviderOutageError } from '../errors';
import { ProviderUnavailableError } from './errors';

/** The first pause between attempts; each later one may be twice as long, up to LONGEST_PAUSE_MS. */
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 1_000;

/** When a client told "provider unavailable" should come back: the provider's Retry-After, else `otherwiseMs`; whole seconds, at least 1. */
export const clientRetryAfterSeconds = (retryAfterMs: number | null, otherwiseMs: number): number =>
  Math.max(1, Math.ceil((retryAfterMs ?? otherwiseMs) / 1000));

/** What to do after a lookup the provider left unanswered. */
export type LookupRetryStep = { retry: true; waitMs: number } | { retry: false; retryAfterSeconds: number };

/**
 * After the `attempt`th call (from 1) went unanswered `elapsedMs` after the first began: wait and ask again,
 * or give up and tell the client when to come back. The pause is a jittered exponential backoff (full
 * jitter: a random share of 250 ms, 500 ms, 1 s, 1 s, …), never shorter than the provider's Retry-After;
 * a retry is made only when it starts inside the budget. Giving up, the client is told the provider's
 * Retry-After when it gave one, else the budget: whole seconds, at least 1.
 */
export function lookupRetryStep(input: {
  attempt: number;
  elapsedMs: number;
  budgetMs: number;
  /** The provider's Retry-After on this answer, when it sent one. */
  retryAfterMs: number | null;
  /** A number in [0, 1). */
  random: number;
}): LookupRetryStep {
  const { attempt, elapsedMs, budgetMs, retryAfterMs, random } = input;
  const backoffMs = Math.floor(random * Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (attempt - 1)));
  const waitMs = Math.max(retryAfterMs ?? 0, backoffMs);
  if (elapsedMs + waitMs < budgetMs) return { retry: true, waitMs };
  return { retry: false, retryAfterSeconds: clientRetryAfterSeconds(retryAfterMs, budgetMs) };
}

export interface LookupRetryOptions {
  budgetMs: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

const sleepFor = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A lookup made while a client waits (a name enquiry, the bank list): asked again within `budgetMs` when the
 * provider leaves it unanswered (429, 5xx, 408, a timeout, a refused connection, an unreadable answer), then
 * `ProviderOutageError` (503 with Retry-After). A definite answer (a 4xx, "not found") is returned or thrown
 * at once. Only for calls that change nothing at the provider: never a payout's submission.
 */
export async function lookupWithRetries<T>(lookup: () => Promise<T>, options: LookupRetryOptions): Promise<T> {
  const { budgetMs, sleep = sleepFor, now = Date.now, random = Math.random } = options;
  const startedAt = now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await lookup();
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      const step = lookupRetryStep({ attempt, elapsedMs: now() - startedAt, budgetMs, retryAfterMs: error.retryAfterMs, random: random() });
      if (!step.retry) throw new ProviderOutageError(step.retryAfterSeconds);
      await sleep(step.waitMs);
    }
  }
}
