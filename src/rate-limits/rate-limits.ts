import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config, RateLimit } from '../config';
import type { Db } from '../db';
import { AppError } from '../errors';

class RateLimitedError extends AppError {
  constructor(message: string, retryAfterMs: number) {
    super('rate_limited', 'rate_limited', message, undefined, Math.max(1, Math.ceil(retryAfterMs / 1000)));
  }
}

interface Limiter {
  /**
   * Counts one request for `key` (or `weight` units of it: a request as costly as that many); throws
   * RateLimitedError (429, Retry-After) once the key is over its limit. A weight above the whole limit counts as
   * the whole limit, so no request is refused forever.
   */
  consume(key: string, weight?: number): Promise<void>;
  /** Gives one back (a sign-in that succeeded from this address was not a guess at this account). */
  reward(key: string): Promise<void>;
}

const unlimited: Limiter = { consume: async () => undefined, reward: async () => undefined };

interface Budget {
  /** Takes one unit of `key`'s budget: 0 when granted, otherwise how long until the budget has one again. */
  take(key: string): Promise<number>;
}

/**
 * Rate limits shared by every API process through Postgres (rate-limiter-flexible, table
 * rate_limits). They are sized for legitimate volume and only stop abuse; each is configurable and
 * `off` disables it.
 */
export function createRateLimits(
  db: Db,
  config: Pick<
    Config,
    | 'RATE_LIMIT_SIGNIN_EMAIL'
    | 'RATE_LIMIT_SIGNIN_ADDRESS'
    | 'RATE_LIMIT_SECOND_FACTOR'
    | 'RATE_LIMIT_NAME_LOOKUPS'
    | 'RATE_LIMIT_SETTLEMENTS'
    | 'RATE_LIMIT_SETTLEMENT_BATCH_ITEMS'
    | 'RATE_LIMIT_REPLAYS'
    | 'RATE_LIMIT_RECONCILIATION_RUNS'
    | 'RATE_LIMIT_RECONCILIATION_PROVIDER_CALLS'
    | 'RATE_LIMIT_ACCOUNT_PROVISIONING'
    | 'RATE_LIMIT_EXPORTS'
    | 'RATE_LIMIT_OVERVIEW'
    | 'RATE_LIMIT_UNSIGNED_WEBHOOKS'
    | 'RATE_LIMIT_ENDPOINT_RECOVERIES'
  >,
) {
  let clearsExpired = true;
  function counter(name: string, limit: RateLimit): RateLimiterPostgres {
    const store = new RateLimiterPostgres({
      storeClient: db,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix: name,
      points: limit.points,
      duration: limit.durationSeconds,
      // One limiter of the process deletes long-expired counters every few minutes; one is enough.
      clearExpiredByTimeout: clearsExpired,
    });
    clearsExpired = false;
    return store;
  }

  function limiter(name: string, limit: RateLimit | null, message: string): Limiter {
    if (!limit) return unlimited;
    const store = counter(name, limit);
    return {
      async consume(key, weight = 1) {
        try {
          await store.consume(key, Math.min(Math.max(1, weight), limit.points));
        } catch (rejection) {
          if (rejection instanceof RateLimiterRes) throw new RateLimitedError(message, rejection.msBeforeNext);
          throw rejection;
        }
      },
      async reward(key) {
        await store.reward(key);
      },
    };
  }

  function budget(name: string, limit: RateLimit | null): Budget {
    if (!limit) return { take: async () => 0 };
    const store = counter(name, limit);
    return {
      async take(key) {
        try {
          await store.consume(key);
          return 0;
        } catch (rejection) {
          if (rejection instanceof RateLimiterRes) return Math.max(1, rejection.msBeforeNext);
          throw rejection;
        }
      },
    };
  }

  return {
    /** Keyed on the client address and the email together: someone else's failures never lock a user out. */
    signInAddressEmail: limiter(
      'signin-address-email',
      config.RATE_LIMIT_SIGNIN_EMAIL,
      'too many sign-in attempts for this account from this address, retry later',
    ),
    signInAddress: limiter('signin-address', config.RATE_LIMIT_SIGNIN_ADDRESS, 'too many sign-in attempts from this address, retry later'),
    /**
     * Keyed on the user: whoever guesses codes already holds the password, so failures from anywhere add up
     * and lock the user's codes (the right one too) until the window ends. A success gives its attempt back.
     */
    secondFactorUser: limiter(
      'second-factor-user',
      config.RATE_LIMIT_SECOND_FACTOR,
      'too many wrong two-factor codes for this user: codes are refused for a while, retry later',
    ),
    nameLookups: limiter('name-lookups', config.RATE_LIMIT_NAME_LOOKUPS, 'too many name lookups, retry later'),
    settlements: limiter('settlements', config.RATE_LIMIT_SETTLEMENTS, 'too many settlements, retry later'),
    /** Weighted by the items of each batch created or dry-run: a 5,000-item body is 5,000 checks. */
    settlementBatchItems: limiter(
      'settlement-batch-items',
      config.RATE_LIMIT_SETTLEMENT_BATCH_ITEMS,
      'too many settlement batch items (batches and dry runs) in a short time, retry later',
    ),
    replays: limiter('replays', config.RATE_LIMIT_REPLAYS, 'too many replays, retry later'),
    reconciliationRuns: limiter('reconciliation-runs', config.RATE_LIMIT_RECONCILIATION_RUNS, 'too many reconciliation runs, retry later'),
    accountProvisioning: limiter(
      'account-provisioning',
      config.RATE_LIMIT_ACCOUNT_PROVISIONING,
      'too many accounts provisioned, retry later',
    ),
    exports: limiter('exports', config.RATE_LIMIT_EXPORTS, 'too many exports, retry later'),
    overview: limiter('overview', config.RATE_LIMIT_OVERVIEW, 'too many overview requests, retry later'),
    unsignedWebhooks: limiter(
      'unsigned-webhooks',
      config.RATE_LIMIT_UNSIGNED_WEBHOOKS,
      'too many webhooks with a bad signature from this address, retry later',
    ),
    /** Provider calls a tenant's reconciliation runs may make together (its runs wait for the budget rather than fail). */
    reconciliationProviderCalls: budget('reconciliation-provider-calls', config.RATE_LIMIT_RECONCILIATION_PROVIDER_CALLS),
    endpointRecoveries: limiter('endpoint-recoveries', config.RATE_LIMIT_ENDPOINT_RECOVERIES, 'too many recoveries, retry later'),
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
