import type { DbOrTrx } from '../db';
import { createInboundEventsRepo, FOUND_BY_RECONCILIATION, type InboundEventRecord, type NewInboundEvent } from './inbound-events.repo';

/** What other domains may read or add of inbound provider events: they reach inbound_events only through these. */
export type { InboundEventRecord, NewInboundEvent };
export { FOUND_BY_RECONCILIATION };

/** The provider's payloads, partitioned by month of `created_at` (see docs/scaling.md#history-by-month), as src/history/ names them. */
export const INBOUND_HISTORY_TABLES: readonly string[] = ['inbound_events'];

/** Records an event reconciliation found in the provider's records, as if its webhook had arrived. */
export const recordInboundEvent = (db: DbOrTrx, event: NewInboundEvent): Promise<{ recorded: boolean; receivedAt: Date | null }> =>
  createInboundEventsRepo(db).record(event);

/** One more than `limit` verified events whose processing failed, newest first, for the tenant's webhook pages. */
export const listProcessingErrors = (
  db: DbOrTrx,
  tenantId: string,
  beforeId: string | null,
  limit: number,
): Promise<Array<InboundEventRecord & { accountRef: string | null }>> =>
  createInboundEventsRepo(db).listProcessingErrors(tenantId, beforeId, limit);
