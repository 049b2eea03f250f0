import { z } from 'zod';
import { duration, integer } from './values';

export const reconciliationEnv = z.object({
  RECONCILIATION_INTERVAL: duration('1h'),
  RECONCILIATION_LOOKBACK: duration('48h'),
  RECONCILIATION_GRACE: duration('5m'),
  RECONCILIATION_PAGE_SIZE: integer(500, 1, 1000),
  RECONCILIATION_STUCK_SETTLEMENT: duration('2h'),
  RECONCILIATION_MAX_LOOKUPS: integer(1000, 0, 1_000_000),
  RECONCILIATION_PROVIDER_ATTEMPTS: integer(6, 1, 50),
  RECONCILIATION_MAX_WINDOW: duration('31d'),
  RECONCILIATION_RUN_PROVIDER_CALLS: integer(10_000, 1, 10_000_000),
  RECONCILIATION_PROVIDER_CONCURRENCY: integer(2, 1, 100),
});
