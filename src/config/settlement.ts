import { z } from 'zod';
import { duration, durationList, integer } from './values';

/** Payouts: which balance funds them, how they are retried, and how long their outcome is watched. */
export const settlementEnv = z.object({
  SETTLEMENT_FUNDS: z.enum(['ledger', 'available']).default('ledger'),
  SETTLEMENT_MAX_ATTEMPTS: integer(5, 1, 50),
  SETTLEMENT_RETRY_SCHEDULE: durationList('30s,1m,2m,5m'),
  SETTLEMENT_POLL_INTERVAL: duration('5s'),
  SETTLEMENT_REFUND_WATCH: duration('24h'),
  SETTLEMENT_NOT_FOUND_GRACE: duration('5m'),
  SETTLEMENT_OVERDUE_AFTER: duration('15m'),
  SETTLEMENT_REFUND_RECHECK: duration('1h'),
  SETTLEMENT_FAILED_REFERENCE_WATCH: duration('72h'),
  SETTLEMENT_WATCH_MAX_INTERVAL: duration('1h'),
  SETTLEMENT_WATCH_LOOKUPS: integer(100, 1, 10_000),
  /** Items of a settlement batch one activity call judges and initiates at most. */
  SETTLEMENT_BATCH_CHUNK: integer(100, 1, 1_000),
  /** Settlements a tenant's batches may have in flight (pending or processing) at once; the next items wait for room. */
  SETTLEMENT_BATCH_IN_FLIGHT: integer(200, 1, 100_000),
  /** A batch's wait while its tenant's cap is full, and between checks that every item is final. */
  SETTLEMENT_BATCH_POLL_INTERVAL: duration('5s'),
  /** A saved beneficiary's name older than this is looked up again before a payout to it. */
  BENEFICIARY_NAME_MAX_AGE: duration('24h'),
});
