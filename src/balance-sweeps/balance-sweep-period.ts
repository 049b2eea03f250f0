/** Sweep times of day are Lagos times, as every business day of this service is (no daylight saving there). */
export const SWEEP_TIME_ZONE = 'Africa/Lagos';

const lagosDate = new Intl.DateTimeFormat('en-CA', { timeZone: SWEEP_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });

/**
 * The period a run sweeps, which with the account names its settlement's Idempotency-Key: a daily sweep's
 * Lagos date (yyyy-MM-dd), a threshold sweep's check slot (the start of the interval the run was due in,
 * ISO 8601 UTC; the Schedule's intervals are aligned to the epoch, so its runs fall on the slot starts).
 */
export function sweepPeriod(form: 'daily' | 'threshold', scheduledAtMs: number, checkIntervalMs: number): string {
  if (form === 'daily') return lagosDate.format(new Date(scheduledAtMs));
  return new Date(Math.floor(scheduledAtMs / checkIntervalMs) * checkIntervalMs).toISOString();
}
