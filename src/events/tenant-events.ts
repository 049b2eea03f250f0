import type { DbOrTrx, Trx } from '../db';
import { uuidv7 } from '../ids';
import { kycLimitExceededDataSql, paymentConfirmedDataSql, type EventData, type EventType } from './event-catalogue';

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
  return { id: row.id, tenantId: row.tenant_id, type: row.type, subject: row.subject, sequence: row.sequence, data: row.data, createdAt: row.created_at, xactId: row.xact_id };
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
  return JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), subject: event.subject, sequence: event.sequence, data: event.data });
}

/**
 * Records an event in the caller's transaction, the one that makes the change it reports: rolled back
 * with it, committed with it. Its sequence is one more than the subject's last, counted under a
 * transaction lock on the subject so two changes of one subject never share a number.
 */
export async function recordEvent<T extends EventType>(trx: Trx, event: { id?: string; tenantId: string; type: T; subject: string; data: EventData<T> }): Promise<string> {
  const id = event.id ?? uuidv7();
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`${event.tenantId}:${event.subject}`]);
  await trx.raw(
    `INSERT INTO tenant_events (id, tenant_id, type, subject, sequence, data)
     SELECT ?, ?, ?, ?, coalesce(max(sequence), 0) + 1, CAST(? AS json) FROM tenant_events WHERE tenant_id = ? AND subject = ?`,
    [id, event.tenantId, event.type, event.subject, JSON.stringify(event.data), event.tenantId, event.subject],
  );
  return id;
}

/**
 * `recordEvent` for the grouped ingest statement, as one of its CTEs: a `payment.received` event for each
 * credited payment, the first of its transaction group (a new one, so its sequence is 1). `credits` names a
 * CTE with the rows' event_record_id and delivery_payload (the spec body, the event's data); `accounts` one
 * with the accounts' id and tenant_id.
 */
export function paymentReceivedEventsCte(name: string, credits: string, accounts: string): string {
  return `${name} AS (
    INSERT INTO tenant_events (id, tenant_id, type, subject, sequence, data)
    SELECT c.event_record_id, t.tenant_id, 'payment.received', CAST(c.delivery_payload AS json)->>'transactionGroupId', 1, CAST(c.delivery_payload AS json)
      FROM ${credits} c JOIN ${accounts} t ON t.id = c.account_id
    RETURNING id
  )`;
}

/**
 * `recordEvent` for the ledger's batch-confirmation statement, as two of its CTEs: a `payment.confirmed`
 * event for each credit it confirmed, numbered after its transaction group's earlier events under the same
 * per-subject lock `recordEvent` takes. The locks are taken in subject order once every confirmed row is
 * known (the sort reads them all first), so after the statement's account and entry locks, as a reversal
 * takes them. `confirmed` names the ledger's CTE of confirmed credits (id, account_id, amount,
 * transaction_group_id).
 */
export function paymentConfirmedEventsCte(name: string, confirmed: string): string {
  return `${name}_subjects AS (
    SELECT s.*, pg_advisory_xact_lock(hashtextextended(s.tenant_id::text || ':' || s.subject, 0)) AS locked
      FROM (SELECT a.tenant_id, a.account_ref, c.amount, CAST(c.transaction_group_id AS text) AS subject
              FROM ${confirmed} c JOIN virtual_accounts a ON a.id = c.account_id
             ORDER BY a.tenant_id, subject) s
  ), ${name} AS (
    INSERT INTO tenant_events (id, tenant_id, type, subject, sequence, data)
    SELECT gen_random_uuid(), s.tenant_id, 'payment.confirmed', s.subject,
           (SELECT coalesce(max(e.sequence), 0) + 1 FROM tenant_events e WHERE e.tenant_id = s.tenant_id AND e.subject = s.subject),
           ${paymentConfirmedDataSql('s.subject', 's.account_ref', 's.amount')}
      FROM ${name}_subjects s
    RETURNING id
  )`;
}

export function createTenantEvents(db: DbOrTrx) {
  return {
    /** Undispatched events, oldest first, locked for the caller's transaction (other dispatchers skip them). */
    async lockUndispatched(limit: number): Promise<TenantEvent[]> {
      const rows: TenantEventRow[] = await db('tenant_events')
        .whereNull('dispatched_at')
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
    async recoveryPage(tenantId: string, types: string[] | null, since: Date, position: RecoveryPosition, limit: number): Promise<{ events: TenantEvent[]; next: RecoveryPosition | null }> {
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

/**
 * `recordEvent` for the grouped ingest statement: a `kyc.limit_exceeded` event for each hold its ledger
 * posting wrote (posting_held), second of its credit's transaction group after `payment.received`.
 * `credits` names a CTE with the rows' hold_event_id and entry (its id and transaction_group_id);
 * `accounts` one with the accounts' id, tenant_id and account_ref.
 */
export function limitExceededEventsCte(name: string, credits: string, accounts: string): string {
  return `${name} AS (
    INSERT INTO tenant_events (id, tenant_id, type, subject, sequence, data)
    SELECT c.hold_event_id, t.tenant_id, 'kyc.limit_exceeded', c.entry->>'transaction_group_id', 2,
           ${kycLimitExceededDataSql('h', 't.account_ref', "c.entry->>'transaction_group_id'")}
      FROM posting_held h
      JOIN ${credits} c ON CAST(c.entry->>'id' AS uuid) = h.entry_id
      JOIN ${accounts} t ON t.id = h.account_id
    RETURNING id
  )`;
}

/**
 * Records `kyc.limit_exceeded` for the hold the ledger wrote on this credit, in the caller's transaction
 * (a credit posted through the posting engine); whether there was a hold.
 */
export async function recordLimitExceeded(trx: Trx, credit: { id: string; tenantId: string; entryId: string; transactionGroupId: string }): Promise<boolean> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`${credit.tenantId}:${credit.transactionGroupId}`]);
  const result = await trx.raw(
    `INSERT INTO tenant_events (id, tenant_id, type, subject, sequence, data)
     SELECT :id, a.tenant_id, 'kyc.limit_exceeded', :subject,
            (SELECT coalesce(max(sequence), 0) + 1 FROM tenant_events WHERE tenant_id = a.tenant_id AND subject = :subject),
            ${kycLimitExceededDataSql('h', 'a.account_ref', 'CAST(:subject AS text)')}
       FROM (SELECT lh.*, e.amount AS credit_amount FROM ledger_holds lh JOIN ledger_entries e ON e.id = lh.entry_id WHERE lh.entry_id = :entry_id) h
       JOIN virtual_accounts a ON a.id = h.account_id`,
    { id: credit.id, subject: credit.transactionGroupId, entry_id: credit.entryId },
  );
  return (result.rowCount ?? 0) > 0;
}
