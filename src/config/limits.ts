import { z } from 'zod';
import { parseDuration } from '../duration';
import { parseNairaInput } from '../money';

export interface RateLimit {
  points: number;
  durationSeconds: number;
}

/** "N/duration" (e.g. 10/15m: ten in any fifteen minutes), or "off". */
const rateLimit = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx): RateLimit | null => {
      if (text === 'off') return null;
      const [count, window] = text.split('/');
      const points = Number(count);
      const ms = window === undefined ? null : parseDuration(window);
      if (!Number.isSafeInteger(points) || points < 1 || ms === null || ms < 1000 || ms % 1000 !== 0) {
        ctx.addIssue({ code: 'custom', message: `expected N/duration in whole seconds such as 10/15m, or off, got "${text}"` });
        return z.NEVER;
      }
      return { points, durationSeconds: ms / 1000 };
    });

const nairaCeiling = z
  .string()
  .default('100000000.00')
  .transform((text, ctx) => {
    const kobo = parseNairaInput(text);
    if (kobo === null || kobo <= 0n) {
      ctx.addIssue({ code: 'custom', message: 'expected a positive naira amount such as 100000000.00' });
      return z.NEVER;
    }
    return kobo;
  });

/** How often a client may do the costly things, and the largest amount one request may move. */
export const limitsEnv = z.object({
  RATE_LIMIT_SIGNIN_EMAIL: rateLimit('10/15m'),
  RATE_LIMIT_SIGNIN_ADDRESS: rateLimit('100/15m'),
  RATE_LIMIT_SECOND_FACTOR: rateLimit('5/15m'),
  RATE_LIMIT_NAME_LOOKUPS: rateLimit('3000/1m'),
  RATE_LIMIT_SETTLEMENTS: rateLimit('60000/1m'),
  RATE_LIMIT_SETTLEMENT_BATCH_ITEMS: rateLimit('20000/1m'),
  RATE_LIMIT_REPLAYS: rateLimit('600/1m'),
  RATE_LIMIT_RECONCILIATION_RUNS: rateLimit('6/1h'),
  RATE_LIMIT_RECONCILIATION_PROVIDER_CALLS: rateLimit('20000/1h'),
  RATE_LIMIT_ACCOUNT_PROVISIONING: rateLimit('6000/1m'),
  RATE_LIMIT_EXPORTS: rateLimit('30/1m'),
  RATE_LIMIT_OVERVIEW: rateLimit('120/1m'),
  RATE_LIMIT_UNSIGNED_WEBHOOKS: rateLimit('60/1m'),
  RATE_LIMIT_ENDPOINT_RECOVERIES: rateLimit('60/1h'),
  MAX_AMOUNT: nairaCeiling,
});
