import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ScheduledPayoutActivities } from '../activities/scheduled-payouts.activities';
import {
  scheduledPayoutCancelledSignal,
  type ScheduledPayoutEnd,
  type ScheduledPayoutInput,
} from '../src/contracts/scheduled-payout.contract';

const { startScheduledPayout } = proxyActivities<ScheduledPayoutActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One run per payout on a date: a durable timer until its time (it survives worker restarts: Temporal keeps it),
 * ended early by the cancel signal; then the activity makes the payout its settlement (whose own workflow pays it), in
 * the transaction that flips the payout from scheduled to started under its row's lock, so a cancel and the start
 * never both happen. A cancel the run never heard of is found there: it ends without paying.
 */
export async function scheduledPayoutWorkflow(input: ScheduledPayoutInput): Promise<ScheduledPayoutEnd> {
  let cancelled = false;
  setHandler(scheduledPayoutCancelledSignal, () => {
    cancelled = true;
  });
  const waitMs = Date.parse(input.scheduledFor) - Date.now();
  if (waitMs > 0) await condition(() => cancelled, waitMs);
  if (cancelled) return 'cancelled';
  return startScheduledPayout({ tenantId: input.tenantId, merchantTxRef: input.merchantTxRef });
}
