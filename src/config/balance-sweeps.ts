import { z } from 'zod';
import { duration } from './values';

/**
 * Scheduled balance sweeps: how often a threshold sweep ("when above") checks its account, and how often the worker
 * brings in line the Schedules of sweeps whose push after the commit did not reach Temporal.
 */
export const balanceSweepsEnv = z.object({
  BALANCE_SWEEP_CHECK_INTERVAL: duration('15m').refine((ms) => ms >= 60_000, { error: 'expected at least 1m' }),
  BALANCE_SWEEP_SCHEDULES_SYNC_INTERVAL: duration('5s'),
});
