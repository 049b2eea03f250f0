import type { DbOrTrx } from '../db';

export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'dead_letter' | 'cancelled';

export interface DeliveryRecord {
  id: string;
  eventId: string;
  tenantId: string;
  /** The account whose callbackUrl receives it; null for an endpoint's delivery. */
  accountId: string | null;
  endpointId: string | null;
  tenantEventId: string | null;
  replayOf: string | null;
  callbackUrl: string;
  payload: string;
  status: DeliveryStatus;
  attemptCount: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextRetryAt: Date | null;
  eventReceivedAt: Date;
  deliveredAt: Date | null;
  createdAt: Date;
}

export interface DeliveryAttemptRecord {
  attemptNo: number;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  tenant_id: string;
  account_id: string | null;
  endpoint_id: string | null;
  tenant_event_id: string | null;
  replay_of: string | null;
  callback_url: string;
  payload: string;
  status: DeliveryStatus;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_retry_at: Date | null;
  event_received_at: Date;
  delivered_at: Date | null;
  created_at: Date;
}

function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    eventId: row.event_id,
    tenantId: row.tenant_id,
    accountId: row.account_id,
    endpointId: row.endpoint_id,
    tenantEventId: row.tenant_event_id,
    replayOf: row.replay_of,
    callbackUrl: row.callback_url,
    payload: row.payload,
    status: row.status,
    attemptCount: row.attempt_count,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextRetryAt: row.next_retry_at,
    eventReceivedAt: row.event_received_at,
    deliveredAt: row.delivered_at,
    createdAt: row.created_at,
  };
}

export interface AttemptOutcome {
  attemptNo: number;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** succeeded, or where the delivery goes next: retrying (with nextRetryAt) or dead_letter. */
  status: Exclude<DeliveryStatus, 'pending' | 'cancelled'>;
  nextRetryAt: Date | null;
}

export function createDeliveriesRepo(db: DbOrTrx) {
  return {
    async findById(id: string): Promise<DeliveryRecord | undefined> {
      const row: DeliveryRow | undefined = await db('webhook_deliveries').where({ id }).first();
      return row ? toDelivery(row) : undefined;
    },

    async find(tenantId: string, id: string): Promise<DeliveryRecord | undefined> {
      const row: DeliveryRow | undefined = await db('webhook_deliveries').where({ tenant_id: tenantId, id }).first();
      return row ? toDelivery(row) : undefined;
    },

    /** Whether the tenant's delivery `id` lies in an archived month (see docs/scaling.md#archived-months). */
    async isArchived(tenantId: string, id: string): Promise<boolean> {
      const row = await db('history_archived_rows').where({ table_name: 'webhook_deliveries', tenant_id: tenantId, id }).first('id');
      return row !== undefined;
    },

    async attempts(deliveryId: string): Promise<DeliveryAttemptRecord[]> {
      const rows: Array<{ attempt_no: number; attempted_at: Date; status_code: number | null; error: string | null; duration_ms: number }> =
        await db('webhook_attempts').where({ delivery_id: deliveryId }).orderBy('attempt_no');
      return rows.map((row) => ({
        attemptNo: row.attempt_no,
        attemptedAt: row.attempted_at,
        statusCode: row.status_code,
        error: row.error,
        durationMs: row.duration_ms,
      }));
    },

    /**
     * Idempotent per attempt number, so an activity retried after a crash records the attempt once; the
     * delivery when this call recorded it, else undefined. An attempt carries its delivery's tenant and created_at: it
     * lives in its delivery's month, where (delivery_id, attempt_no) is unique.
     */
    async recordAttempt(deliveryId: string, outcome: AttemptOutcome): Promise<DeliveryRecord | undefined> {
      // created_at as text: a Date would lose its microseconds.
      const { rows: inserted }: { rows: Array<{ created_at: string }> } = await db.raw(
        `INSERT INTO webhook_attempts (delivery_id, tenant_id, created_at, attempt_no, attempted_at, status_code, error, duration_ms)
         SELECT d.id, d.tenant_id, d.created_at, :attemptNo, :attemptedAt, :statusCode, :error, :durationMs FROM webhook_deliveries d WHERE d.id = :deliveryId
         ON CONFLICT (delivery_id, attempt_no, created_at) DO NOTHING
         RETURNING CAST(created_at AS text) AS created_at`,
        {
          deliveryId,
          attemptNo: outcome.attemptNo,
          attemptedAt: outcome.attemptedAt,
          statusCode: outcome.statusCode,
          error: outcome.error,
          durationMs: outcome.durationMs,
        },
      );
      if (inserted.length === 0) return undefined;
      const [row] = await db('webhook_deliveries')
        .where({ id: deliveryId })
        .whereRaw('created_at = CAST(? AS timestamptz)', [inserted[0]!.created_at])
        .whereIn('status', ['pending', 'retrying'])
        .update({
          status: outcome.status,
          attempt_count: outcome.attemptNo,
          last_status_code: outcome.statusCode,
          last_error: outcome.error,
          next_retry_at: outcome.nextRetryAt,
          delivered_at: outcome.status === 'succeeded' ? outcome.attemptedAt : null,
          updated_at: db.fn.now(),
        })
        .returning('*');
      return row ? toDelivery(row as DeliveryRow) : this.findById(deliveryId);
    },

    async listDeadLetters(tenantId: string, beforeId: string | null, limit: number): Promise<DeliveryRecord[]> {
      const query = db('webhook_deliveries').where({ tenant_id: tenantId, status: 'dead_letter' }).orderBy('id', 'desc').limit(limit);
      if (beforeId) query.where('id', '<', beforeId);
      const rows: DeliveryRow[] = await query;
      return rows.map(toDelivery);
    },
  };
}
