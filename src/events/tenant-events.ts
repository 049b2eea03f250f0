import type { DbOrTrx, Trx } from '../db';
import { uuidv7 } from '../ids';
import { eventSubject, type EventData, type EventType } from './event-catalogue';

/** An event as stored: the envelope's fields, and when the dispatcher turned it into deliveries. */
export interface TenantEvent {
  id: string;
  tenantId: string;
  type: EventType;
  subject: string;
  sequence: number;
  data: Record<string, unknown>;
  createdAt: Date;
  /** The transaction that recorded it (xid8, as decimal text): recovery pages by it, see recoveryPage. */
  xactId: string;
}

interface TenantEventRow {
  id: string;
  tenant_id: string;
  type: EventType;
  subject: string;
  sequence: number;
  data: Record<string, unknown>;
  created_at: Date;
  xact_id: string;
}

function toEvent(row: TenantEventRow): TenantEvent {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    type: row.type,
    subject: row.subject,
    sequence: row.sequence,
    data: row.data,
    createdAt: row.created_at,
    xactId: row.xact_id,
  };
}

/**
 * Where a recovery of a tenant's events stands, in commit order: every event of its range whose
 * (xactId, id) is above (`xactId`, `id`) and whose transaction's id is below `until` is still to come.
 * `until` is the first transaction id not yet handed out when the recovery began: events recorded by
 * later transactions are dispatched the usual way.
 */
export interface RecoveryPosition {
  until: string;
  xactId: string;
  id: string;
}

/** The lowest id, below every event id: a position that starts at a transaction id, before all its events. */
const BEFORE_EVERY_ID = '00000000-0000-0000-0000-000000000000';

/** The body an endpoint receives, serialised once per delivery and sent byte-identical on every retry. */
export function eventEnvelopeBody(event: TenantEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    subject: event.subject,
    sequence: event.sequence,
    data: event.data,
  });
}

/**
 * Whether endpoint `alias` (a webhook_endpoints row) takes events of `typeSql` for tenant `tenantIdSql`: live, enabled
 * and subscribed to the type (or to every type). The dispatcher delivers to these, and an event is recorded waiting
 * for it only when its tenant has one as it is recorded: the events no endpoint takes (most, for a tenant without
 * endpoints) are recorded dispatched, and cost the dispatcher nothing.
 */
export const subscribedEndpointSql = (alias: string, tenantIdSql: string, typeSql: string): string =>
  `${alias}.tenant_id = ${tenantIdSql} AND ${alias}.deleted_at IS NULL AND ${alias}.enabled AND (${alias}.event_types IS NULL OR ${typeSql} = ANY(${alias}.event_types))`;

/** The per-subject transaction lock every event of an existing subject is numbered under; the arguments are SQL expressions. */
const subjectLockSql = (tenantId: string, subject: string) =>
  `pg_advisory_xact_lock(hashtextextended(CAST(${tenantId} AS text) || ':' || ${subject}, 0))`;

/**
 * The one way events are written and numbered, as CTE `name` of a statement (the grouped statements, or
 * recordEvent's own). `rows` is a query of the events to record, with columns id, tenant_id, type, subject,
 * ord (the event's place, from 1, among the events this statement records of its subject) and data (json).
 * An event's sequence is its subject's last one plus its ord:
 * - `new`: the subjects are made by this very transaction (a transaction group or a settlement it creates),
 *   so no one else can record events of them before it commits and their last sequence is 0: no lock and no
 *   lookup (the hot ingest statement stays as cheap as it was).
 * - `existing`: each subject is locked (in tenant and subject order, so two statements never wait in a
 *   cycle) and its last sequence read.
 */
export function recordedEventsCte(name: string, rows: string, subjects: 'new' | 'existing'): string {
  const insert = (from: string, last: string) => `${name} AS (
    INSERT INTO tenant_events (id, tenant_id, type, subject, sequence, data, dispatched_at)
    SELECT r.id, r.tenant_id, r.type, r.subject, CAST(${last} + r.ord AS int), r.data,
           CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints w WHERE ${subscribedEndpointSql('w', 'r.tenant_id', 'r.type')}) THEN NULL ELSE now() END
      FROM ${from} r
    RETURNING id
  )`;
  if (subjects === 'new') return insert(`(${rows})`, '0');
  return `${name}_subjects AS (
    SELECT s.*, ${subjectLockSql('s.tenant_id', 's.subject')} AS locked
      FROM (SELECT * FROM (${rows}) r ORDER BY r.tenant_id, r.subject, r.ord) s
  ), ${insert(`${name}_subjects`, '(SELECT coalesce(max(e.sequence), 0) FROM tenant_events e WHERE e.tenant_id = r.tenant_id AND e.subject = r.subject)')}`;
}

/** An event of one type with its data, as recordEvent takes it. */
export type EventOf = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/**
 * Records an event in the caller's transaction, the one that makes the change it reports: rolled back
 * with it, committed with it. Its subject's lock is taken by a statement of its own first, so the
 * statement that numbers the event reads the subject's events as they are once the lock is held.
 */
export async function recordEvent(trx: Trx, event: EventOf & { id?: string; tenantId: string }): Promise<string> {
  const id = event.id ?? uuidv7();
  const subject = eventSubject(event.type, event.data as never);
  await trx.raw(`SELECT ${subjectLockSql('?', '?')}`, [event.tenantId, subject]);
  const row = `SELECT CAST(:id AS uuid) AS id, CAST(:tenant_id AS uuid) AS tenant_id, CAST(:type AS text) AS type, CAST(:subject AS text) AS subject, 1 AS ord, CAST(:data AS json) AS data`;
  await trx.raw(`WITH ${recordedEventsCte('recorded', row, 'existing')} SELECT count(*) FROM recorded`, {
    id,
    tenant_id: event.tenantId,
    type: event.type,
    subject,
    data: JSON.stringify(event.data),
  });
  return id;
}

export function createTenantEvents(db: DbOrTrx) {
  return {
    /** Undispatched events, oldest first, locked for the caller's transaction (other dispatchers skip them). */
    async lockUndispatched(limit: number): Promise<TenantEvent[]> {
      const rows: TenantEventRow[] = await db('tenant_events')
        .whereNull('dispatched_at')
        // A tenant moved to another cluster has its events dispatched there (the copy took them undispatched).
        .whereNotIn('tenant_id', db('tenants').whereNotNull('moved_out_at').select('id'))
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .limit(limit)
        .forUpdate()
        .skipLocked();
      return rows.map(toEvent);
    },

    async markDispatched(ids: string[]): Promise<void> {
      if (ids.length > 0) await db('tenant_events').whereIn('id', ids).update({ dispatched_at: db.fn.now() });
    },

    /**
     * Where a recovery of the tenant's events of these types (all when null) recorded from `since` on
     * begins: before the lowest transaction id among them, and before every transaction still in flight
     * (one may record an event of the range yet).
     */
    async recoveryStart(tenantId: string, types: string[] | null, since: Date): Promise<RecoveryPosition> {
      const { rows } = (await db.raw(
        `SELECT CAST(pg_snapshot_xmax(s) AS text) AS until,
                CAST(least(pg_snapshot_xmin(s),
                           (SELECT min(e.xact_id) FROM tenant_events e
                             WHERE e.tenant_id = ? AND e.created_at >= ? AND (CAST(? AS text[]) IS NULL OR e.type = ANY(CAST(? AS text[]))))) AS text) AS start
           FROM pg_current_snapshot() s`,
        [tenantId, since, types, types],
      )) as { rows: Array<{ until: string; start: string }> };
      return { until: rows[0]!.until, xactId: rows[0]!.start, id: BEFORE_EVERY_ID };
    },

    /**
     * The next events of a recovery after `position`, in commit order (transaction id, then event id), at
     * most `limit`, and where the recovery stands after them (null: every event of its range is returned).
     * Only events of transactions older than the oldest one still in flight (the read's own snapshot) are
     * returned: each of those has committed or never will, so an event that commits after this read,
     * whatever its time or id, sorts after every event returned here. While a transaction that began
     * before the recovery is still in flight, the answer stops at it and says where to go on.
     */
    async recoveryPage(
      tenantId: string,
      types: string[] | null,
      since: Date,
      position: RecoveryPosition,
      limit: number,
    ): Promise<{ events: TenantEvent[]; next: RecoveryPosition | null }> {
      const { rows } = (await db.raw(
        `WITH snapshot AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon),
         page AS (
           SELECT e.* FROM tenant_events e
            WHERE e.tenant_id = :tenant AND e.created_at >= :since
              AND (CAST(:types AS text[]) IS NULL OR e.type = ANY(CAST(:types AS text[])))
              AND (e.xact_id, e.id) > (CAST(:xact AS xid8), CAST(:id AS uuid))
              AND e.xact_id < least((SELECT horizon FROM snapshot), CAST(:until AS xid8))
            ORDER BY e.xact_id, e.id
            LIMIT :limit
         )
         SELECT CAST(s.horizon AS text) AS horizon, p.*
           FROM snapshot s LEFT JOIN page p ON true
          ORDER BY p.xact_id, p.id`,
        { tenant: tenantId, since, types, xact: position.xactId, id: position.id, until: position.until, limit: limit + 1 },
      )) as { rows: Array<TenantEventRow & { horizon: string }> };
      // With no event to return, the one row carries the horizon alone.
      const found = rows.filter((row) => row.id !== null).map(toEvent);
      const events = found.slice(0, limit);
      const horizon = rows[0]!.horizon;
      if (found.length > limit) return { events, next: { ...position, xactId: events.at(-1)!.xactId, id: events.at(-1)!.id } };
      if (BigInt(horizon) < BigInt(position.until)) return { events, next: { ...position, xactId: horizon, id: BEFORE_EVERY_ID } };
      return { events, next: null };
    },
  };
}
