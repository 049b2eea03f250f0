import type { ScheduledPayoutEnd } from '../src/contracts/scheduled-payout.contract';
import type { ScheduledPayoutsService } from '../src/settlements/scheduled-payouts.service';

export function createScheduledPayoutActivities(deps: { scheduledPayouts: Pick<ScheduledPayoutsService, 'start'> }) {
  const { scheduledPayouts } = deps;
  return {
    /** Makes a payout whose time came its settlement; a retry after the commit answers `started` again. */
    startScheduledPayout(request: { tenantId: string; merchantTxRef: string }): Promise<ScheduledPayoutEnd> {
      return scheduledPayouts.start(request.tenantId, request.merchantTxRef);
    },
  };
}

export type ScheduledPayoutActivities = ReturnType<typeof createScheduledPayoutActivities>;
