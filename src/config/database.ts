import { z } from 'zod';
import { duration, integer } from './values';

export const databaseEnv = z.object({
  DATABASE_URL: z.string().min(1).default('postgres://ledger:ledger@127.0.0.1:5432/ledger'),
  DATABASE_POOL_MAX: integer(20, 1, 500),
  /**
   * A streaming hot standby of DATABASE_URL's cluster (the same database name). Unset: every read goes to the primary.
   * Set: statements, books, balances and lists may be read from it (docs/scaling.md#read-replicas).
   */
  DATABASE_REPLICA_URL: z.string().min(1).optional(),
  /** Past this much replay lag, every read goes to the primary. */
  DATABASE_REPLICA_MAX_LAG: duration('5s'),
});
