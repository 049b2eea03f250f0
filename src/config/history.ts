import { z } from 'zod';
import { duration, integer } from './values';

/** The ledger's history by month: how many months ahead the worker keeps made, and how often it looks. */
export const historyEnv = z.object({
  HISTORY_MONTHS_AHEAD: integer(3, 1, 24),
  HISTORY_MONTHS_INTERVAL: duration('1h'),
});
