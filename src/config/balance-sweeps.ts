import { z } from 'zod';
import { duration } from './values';

/** Scheduled balance sweeps: how often a threshold sweep ("when above") checks its account. */
export const balanceSweepsEnv = z.object({
  BALANCE_SWEEP_CHECK_INTERVAL: duration('15m').refine((ms) => ms >= 60_000, { error: 'expected at least 1m' }),
});
