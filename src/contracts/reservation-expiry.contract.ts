/**
 * The reservation expiry workflow's contract: its Schedule's id and what one run did. Workflow code imports this
 * module: types and pure functions only.
 */

export const reservationExpiryScheduleId = (taskQueue: string): string => `reservation-expiry:${taskQueue}`;

export interface ReservationExpiryResult {
  /** Reservations whose expiry had passed, released as expired. */
  expired: number;
}
