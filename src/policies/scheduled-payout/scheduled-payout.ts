/**
 * When a payout may be scheduled for: any instant after the request (a payout due at once is an ordinary settle) and
 * no more than MAX_SCHEDULE_DAYS ahead. Lagos keeps one offset all year (UTC+1, no daylight saving), so its local
 * time of an instant is the instant shifted by an hour.
 */

/** The furthest ahead a payout may be scheduled. */
export const MAX_SCHEDULE_DAYS = 90;

const DAY_MS = 24 * 60 * 60 * 1000;
const LAGOS_OFFSET_MS = 60 * 60 * 1000;

export type ScheduleDecision = { allowed: true } | { allowed: false; message: string };

/** Whether a payout may start at `scheduledFor`, asked at `now`. */
export function scheduleDecision(scheduledFor: Date, now: Date): ScheduleDecision {
  if (scheduledFor.getTime() <= now.getTime())
    return {
      allowed: false,
      message: `scheduledFor must be in the future (it is ${scheduledFor.toISOString()}, now is ${now.toISOString()})`,
    };
  if (scheduledFor.getTime() > now.getTime() + MAX_SCHEDULE_DAYS * DAY_MS)
    return { allowed: false, message: `scheduledFor must be at most ${MAX_SCHEDULE_DAYS} days ahead` };
  return { allowed: true };
}

/** The instant as Lagos reads it, in RFC 3339 with its offset: 2026-12-01T09:00:00.000+01:00. */
export function lagosTime(instant: Date): string {
  return new Date(instant.getTime() + LAGOS_OFFSET_MS).toISOString().replace('Z', '+01:00');
}
