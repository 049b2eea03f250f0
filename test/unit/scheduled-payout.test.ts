import assert from 'node:assert/strict';
import { lagosTime, MAX_SCHEDULE_DAYS, scheduleDecision } from '../../src/policies/scheduled-payout/scheduled-payout';

describe('scheduled payout policy', () => {
  const now = new Date('2026-12-01T08:00:00.000Z');

  it('allows any instant after now, up to 90 days ahead', () => {
    assert.deepEqual(scheduleDecision(new Date(now.getTime() + 1), now), { allowed: true });
    assert.deepEqual(scheduleDecision(new Date(now.getTime() + MAX_SCHEDULE_DAYS * 86_400_000), now), { allowed: true });
  });

  it('refuses now, the past and past 90 days, saying which', () => {
    for (const past of [now, new Date(now.getTime() - 60_000)]) {
      const decision = scheduleDecision(past, now);
      assert.equal(decision.allowed, false);
      assert.match(decision.allowed ? '' : decision.message, /must be in the future/);
    }
    const far = scheduleDecision(new Date(now.getTime() + MAX_SCHEDULE_DAYS * 86_400_000 + 1), now);
    assert.deepEqual(far, { allowed: false, message: 'scheduledFor must be at most 90 days ahead' });
  });

  it('reads an instant in Lagos time, an hour ahead of UTC all year', () => {
    assert.equal(lagosTime(new Date('2026-12-01T08:00:00.000Z')), '2026-12-01T09:00:00.000+01:00');
    assert.equal(lagosTime(new Date('2026-06-30T23:30:00.000Z')), '2026-07-01T00:30:00.000+01:00');
  });
});
