import { z } from 'zod';
import { duration } from './values';

/** How long stored payloads, finished housekeeping rows and balance sweep runs that moved nothing are kept, and how often that is applied. */
export const retentionEnv = z.object({
  RETENTION_INBOUND_PAYLOADS: duration('90d'),
  RETENTION_UNVERIFIED_EVENTS: duration('30d'),
  RETENTION_HOUSEKEEPING: duration('30d'),
  RETENTION_BALANCE_SWEEP_RUNS: duration('90d'),
  RETENTION_INTERVAL: duration('1h'),
});
