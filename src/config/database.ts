import { z } from 'zod';
import { integer } from './values';

export const databaseEnv = z.object({
  DATABASE_URL: z.string().min(1).default('postgres://ledger:ledger@127.0.0.1:5432/ledger'),
  DATABASE_POOL_MAX: integer(20, 1, 500),
});
