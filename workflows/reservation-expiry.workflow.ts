import { proxyActivities } from '@temporalio/workflow';
import type { ReservationActivities } from '../activities/reservations.activities';
import type { ReservationExpiryResult } from '../src/contracts/reservation-expiry.contract';

// The activity heartbeats after each batch: a worker that dies mid-run is noticed in 30 s and the activity is
// retried (the Schedule skips runs while this one is open). A retry expires nothing twice: see the activity.
const { expireDueReservations } = proxyActivities<ReservationActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/** Run by a Temporal Schedule: releases, as expired, the reservations whose expiry has passed. */
export async function reservationExpiryWorkflow(): Promise<ReservationExpiryResult> {
  return expireDueReservations();
}
