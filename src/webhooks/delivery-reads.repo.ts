import type { DbOrTrx } from '../db';
import type { DeliveryStatus } from './deliveries.repo';

export interface DeliveryListItem {
  id: string;
  eventId: string;
  accountRef: string;
  callbackUrl: string;
  status: DeliveryStatus;
  attemptCount: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextRetryAt: Date | null;
  eventReceivedAt: Date;
  deliveredAt: Date | null;
  replayOf: string | null;
  /** The newest replay of this delivery, if it was replayed. */
  latestReplay: { id: string; status: DeliveryStatus } | null;
}

interface DeliveryListRow {
  id: string;
  event_id: string;
  account_ref: string;
  callback_url: string;
  status: DeliveryStatus;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_retry_at: Date | null;
  event_received_at: Date;
  delivered_at: Date | null;
  replay_of: string | null;
  replay_id: string | null;
  replay_status: DeliveryStatus | null;
}

/** The dashboard's reads of outbound deliveries (the payload itself is never listed). */
export function createDeliveryReadsRepo(db: DbOrTrx) {
  return {
    /** Newest first, optionally of one status; `beforeId` is the previous page's last id. */
    async list(tenantId: string, status: DeliveryStatus | null, beforeId: string | null, limit: number): Promise<DeliveryListItem[]> {
      const query = db('webhook_deliveries as d')
        .join('virtual_accounts as va', 'va.id', 'd.account_id')
        .joinRaw(
          'LEFT JOIN LATERAL (SELECT r.id, r.status FROM webhook_deliveries r WHERE r.replay_of = d.id ORDER BY r.id DESC LIMIT 1) replay ON true',
        )
        .where('d.tenant_id', tenantId)
        .orderBy('d.id', 'desc')
        .limit(limit)
        .select(
          'd.id',
          'd.event_id',
          'va.account_ref',
          'd.callback_url',
          'd.status',
          'd.attempt_count',
          'd.last_status_code',
          'd.last_error',
          'd.next_retry_at',
          'd.event_received_at',
          'd.delivered_at',
          'd.replay_of',
          'replay.id as replay_id',
          'replay.status as replay_status',
        );
      if (status) query.where('d.status', status);
      if (beforeId) query.where('d.id', '<', beforeId);
      const rows: DeliveryListRow[] = await query;
      return rows.map((row) => ({
        id: row.id,
        eventId: row.event_id,
        accountRef: row.account_ref,
        callbackUrl: row.callback_url,
        status: row.status,
        attemptCount: row.attempt_count,
        lastStatusCode: row.last_status_code,
        lastError: row.last_error,
        nextRetryAt: row.next_retry_at,
        eventReceivedAt: row.event_received_at,
        deliveredAt: row.delivered_at,
        replayOf: row.replay_of,
        latestReplay: row.replay_id && row.replay_status ? { id: row.replay_id, status: row.replay_status } : null,
      }));
    },

    /** Dead letters nobody has replayed yet: the ones still needing attention. */
    async unreplayedDeadLetters(tenantId: string): Promise<number> {
      const row: { count?: string | number } | undefined = await db('webhook_deliveries as d')
        .where({ 'd.tenant_id': tenantId, 'd.status': 'dead_letter' })
        .whereNotExists(db('webhook_deliveries as r').whereRaw('r.replay_of = d.id'))
        .count({ count: '*' })
        .first();
      return Number(row?.count ?? 0);
    },
  };
}
