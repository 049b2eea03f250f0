import type { InboundEventRecord } from '../payment-ingest/inbound-events.access';
import type { DeliveryAttemptRecord, DeliveryRecord } from './deliveries.repo';
import type { DeliveryListItem } from './delivery-reads.repo';

export function presentDelivery(delivery: DeliveryRecord, attempts: DeliveryAttemptRecord[]) {
  return {
    ID: delivery.id,
    EventID: delivery.eventId,
    CallbackURL: delivery.callbackUrl,
    Status: delivery.status,
    AttemptCount: delivery.attemptCount,
    LastError: delivery.lastError,
    NextRetryAt: delivery.nextRetryAt?.toISOString() ?? null,
    CreatedAt: delivery.eventReceivedAt.toISOString(),
    DeliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    ReplayOf: delivery.replayOf,
    Attempts: attempts.map((attempt) => ({
      Attempt: attempt.attemptNo,
      AttemptedAt: attempt.attemptedAt.toISOString(),
      StatusCode: attempt.statusCode,
      Error: attempt.error,
      DurationMs: attempt.durationMs,
    })),
  };
}

export function presentDeliveryListItem(item: DeliveryListItem) {
  return {
    ID: item.id,
    EventID: item.eventId,
    AccountRef: item.accountRef,
    CallbackURL: item.callbackUrl,
    Status: item.status,
    AttemptCount: item.attemptCount,
    LastStatusCode: item.lastStatusCode,
    LastError: item.lastError,
    NextRetryAt: item.nextRetryAt?.toISOString() ?? null,
    CreatedAt: item.eventReceivedAt.toISOString(),
    DeliveredAt: item.deliveredAt?.toISOString() ?? null,
    ReplayOf: item.replayOf,
    LatestReplay: item.latestReplay ? { ID: item.latestReplay.id, Status: item.latestReplay.status } : null,
  };
}

/** A dead letter as GET /v1/webhooks/dead-letters lists it (SPEC.md's shape). */
export function presentDeadLetter(delivery: DeliveryRecord) {
  return {
    ID: delivery.id,
    CallbackURL: delivery.callbackUrl,
    Status: 'dead_letter' as const,
    AttemptCount: delivery.attemptCount,
    LastError: delivery.lastError ?? '',
    NextRetryAt: null,
    CreatedAt: delivery.eventReceivedAt.toISOString(),
  };
}

export const presentReplay = (replay: DeliveryRecord) => ({
  ID: replay.id,
  EventID: replay.eventId,
  Status: replay.status,
  ReplayOf: replay.replayOf!,
});

/** A payment event whose posting failed: listed beside the dead letters. */
export function presentProcessingError(event: InboundEventRecord & { accountRef: string | null }) {
  return {
    ID: event.id,
    RequestID: event.requestId,
    AccountRef: event.accountRef,
    Error: event.error ?? '',
    ReceivedAt: event.receivedAt.toISOString(),
  };
}
