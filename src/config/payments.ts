import { z } from 'zod';
import { duration, integer } from './values';

/** How incoming payments are posted in groups and confirmed with the provider. */
export const paymentsEnv = z.object({
  PAYMENT_POSTING_GROUP_MAX: integer(64, 1, 500),
  PAYMENT_POSTING_STATEMENTS: integer(1, 1, 100),
  CONFIRMATION_WINDOW: duration('30m'),
  CONFIRMATION_POLL_INTERVAL: duration('2s'),
  CONFIRMATION_MIN_NOT_FOUND_LOOKUPS: integer(3, 1, 100),
  CONFIRMATION_BATCH_MAX: integer(64, 1, 500),
  CONFIRMATION_BATCH_WINDOW: duration('500ms'),
  CONFIRMATION_BATCHES_PER_WORKER: integer(4, 1, 10_000),
});
