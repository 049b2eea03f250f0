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
}

interface TenantEventRow {
  id: string;
  tenant_id: string;
  type: EventType;
  subject: string;
  sequence: number;
  data: Record<string, unknown>;
  created_at: Date;
}

function toEvent(row: TenantEventRow): TenantEvent {
  return { id: row.id, tenantId: row.tenant_id, type: row.type, subject: row.subject, sequence: row.sequence, data: row.data, createdAt: row.created_at };
}

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

    async find(tenantId: string, id: string): Promise<TenantEvent | undefined> {
      const row: TenantEventRow | undefined = await db('tenant_events').where({ tenant_id: tenantId, id }).first();
      return row ? toEvent(row) : undefined;
    },

    /**
     * A tenant's events of these types (all types when null) from `since` on, in the order they were made,
     * after the event `afterId` names. The cursor's time is read in SQL: the database keeps microseconds,
     * a Date only milliseconds, and the cursor's own event must not come back.
     */
    async since(tenantId: string, types: string[] | null, since: Date, afterId: string | null, limit: number): Promise<TenantEvent[]> {
      const query = db('tenant_events')
        .where({ tenant_id: tenantId })
        .where('created_at', '>=', since)
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .limit(limit);
      if (types) query.whereIn('type', types);
      if (afterId) query.whereRaw('(created_at, id) > (SELECT c.created_at, c.id FROM tenant_events c WHERE c.id = ?)', [afterId]);
      const rows: TenantEventRow[] = await query;
      return rows.map(toEvent);
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
