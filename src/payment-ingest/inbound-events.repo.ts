import type { DbOrTrx } from '../db';
import { koboFromDb, type Kobo } from '../money';

export type EventCategory = 'payment' | 'misdirected' | 'sig_invalid' | 'non_payment_event' | 'processing_error';

export interface NewInboundEvent {
  id: string;
  requestId: string | null;
  eventType: string | null;
  category: EventCategory;
  signatureValid: boolean;
  tenantId?: string | null;
  accountId?: string | null;
  entryId?: string | null;
  transactionId?: string | null;
  aliasAccountRef?: string | null;
  grossAmount?: Kobo | null;
  fee?: Kobo | null;
  senderName?: string | null;
  payload?: unknown;
  rawBody?: string | null;
  /** Hex SHA-256 of the whole body, for an event kept only as a prefix. */
  rawSha256?: string | null;
  error?: string | null;
  flags?: string[];
}

export interface InboundEventRecord {
  id: string;
  requestId: string | null;
  eventType: string | null;
  category: EventCategory;
  tenantId: string | null;
  accountId: string | null;
  transactionId: string | null;
  aliasAccountRef: string | null;
  grossAmount: Kobo | null;
  fee: Kobo | null;
  senderName: string | null;
  narration: string | null;
  /** As the provider sent it; null when absent (which means NGN). */
  currency: string | null;
  error: string | null;
  assignedAccountId: string | null;
  assignedEntryId: string | null;
  assignedAt: Date | null;
  receivedAt: Date;
}

interface EventRow {
  id: string;
  request_id: string | null;
  event_type: string | null;
  category: EventCategory;
  tenant_id: string | null;
  account_id: string | null;
  transaction_id: string | null;
  alias_account_ref: string | null;
  gross_amount: string | null;
  fee: string | null;
  sender_name: string | null;
  narration: string | null;
  currency: string | null;
  error: string | null;
  assigned_account_id: string | null;
  assigned_entry_id: string | null;
  assigned_at: Date | null;
  received_at: Date;
}

const RECORD_COLUMNS = [
  'id',
  'request_id',
  'event_type',
  'category',
  'tenant_id',
  'account_id',
  'transaction_id',
  'alias_account_ref',
  'gross_amount',
  'fee',
  'sender_name',
  'error',
  'assigned_account_id',
  'assigned_entry_id',
  'assigned_at',
  'received_at',
];

const payloadFields = (db: DbOrTrx) => [
  db.raw("payload #>> '{data,transaction,narration}' AS narration"),
  db.raw("payload #>> '{data,transaction,currency}' AS currency"),
];

function toRecord(row: EventRow): InboundEventRecord {
  return {
    id: row.id,
    requestId: row.request_id,
    eventType: row.event_type,
    category: row.category,
    tenantId: row.tenant_id,
    accountId: row.account_id,
    transactionId: row.transaction_id,
    aliasAccountRef: row.alias_account_ref,
    grossAmount: row.gross_amount === null ? null : koboFromDb(row.gross_amount),
    fee: row.fee === null ? null : koboFromDb(row.fee),
    senderName: row.sender_name,
    narration: row.narration,
    currency: row.currency ?? null,
    error: row.error,
    assignedAccountId: row.assigned_account_id,
    assignedEntryId: row.assigned_entry_id,
    assignedAt: row.assigned_at,
    receivedAt: row.received_at,
  };
}

const MAX_STORED_PAYLOAD = 64 * 1024;

/** Postgres text and jsonb refuse NUL characters; a hostile payload must still be recorded. */
function withoutNul(text: string): string {
  return text.replace(/\0/g, '');
}

/**
 * jsonb refuses the escapes \u0000 and lone surrogates (which JSON.stringify writes as \udXXX escapes);
 * the scan consumes whole escape sequences, so an escaped backslash before "u0000" is left alone.
 */
function jsonbSafe(json: string): string {
  return json.replace(/\\(u[0-9a-fA-F]{4}|[^u])/g, (sequence: string, escape: string) => {
    if (escape === 'u0000') return '';
    return /^u[dD][89a-fA-F]/.test(escape) ? '\\ufffd' : sequence;
  });
}

function storablePayload(payload: unknown): { payload: string | null; rawBody: string | null } {
  if (payload === undefined) return { payload: null, rawBody: null };
  const json = jsonbSafe(JSON.stringify(payload));
  return json.length <= MAX_STORED_PAYLOAD
    ? { payload: json, rawBody: null }
    : { payload: null, rawBody: json.slice(0, MAX_STORED_PAYLOAD) };
}

export function inboundEventRow(event: NewInboundEvent): Record<string, unknown> {
  const stored = storablePayload(event.payload);
  return {
    id: event.id,
    request_id: event.requestId,
    event_type: event.eventType,
    category: event.category,
    signature_valid: event.signatureValid,
    tenant_id: event.tenantId ?? null,
    account_id: event.accountId ?? null,
    entry_id: event.entryId ?? null,
    transaction_id: event.transactionId ?? null,
    alias_account_ref: event.aliasAccountRef ?? null,
    gross_amount: event.grossAmount ?? null,
    fee: event.fee ?? null,
    sender_name: event.senderName ?? null,
    payload: stored.payload,
    raw_body: event.rawBody !== undefined && event.rawBody !== null ? withoutNul(event.rawBody) : stored.rawBody,
    raw_sha256: event.rawSha256 ?? null,
    error: event.error ?? null,
    flags: event.flags ?? [],
    // Set, not defaulted: the grouped posting statement fills a whole row from this object.
    occurrences: 1,
  };
}

const jsonOf = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));

/**
 * The key an event claims as it is recorded, as an INSERT of it returning its created_at when this event claimed it
 * (bindings :id, :tenantId, :value): a signature-valid event its request id, an unverified one its body's digest;
 * none for the others. The keys are tables of their own (see migrations/20261212000200_events_and_deliveries_by_month.ts):
 * the events are partitioned by month, and a partitioned unique index holds within a month only.
 */
function claimedKeyOf(event: NewInboundEvent): { table: 'request' | 'digest'; value: string; claim: string } | null {
  if (event.signatureValid && event.requestId !== null)
    return {
      table: 'request',
      value: event.requestId,
      claim: `INSERT INTO inbound_event_request_keys (request_id, tenant_id, event_id, created_at)
              VALUES (:value, CAST(:tenantId AS uuid), CAST(:id AS uuid), now())
              ON CONFLICT (request_id) DO NOTHING RETURNING created_at`,
    };
  if (!event.signatureValid && event.rawSha256)
    return {
      table: 'digest',
      value: event.rawSha256,
      claim: `INSERT INTO inbound_event_digest_keys (raw_sha256, event_id, created_at)
              VALUES (:value, CAST(:id AS uuid), now())
              ON CONFLICT (raw_sha256) DO NOTHING RETURNING created_at`,
    };
  return null;
}

/** The flag of a payment's record made by reconciliation (its webhook never came, or not yet). */
export const FOUND_BY_RECONCILIATION = 'found_by_reconciliation';
/** The flag of a webhook that arrived after reconciliation had credited its payment. */
export const CREDITED_BY_RECONCILIATION = 'credited_by_reconciliation';

export function createInboundEventsRepo(db: DbOrTrx) {
  return {
    /**
     * Records the event. A signature-valid event with a request id claims it (its key, written with the row); an
     * unverified one with a digest claims its body's. False when another copy already claimed the request id (a
     * duplicate): nothing was written. A repeat of an unverified body only counts on the first copy's row.
     */
    async record(event: NewInboundEvent): Promise<{ recorded: boolean; receivedAt: Date | null }> {
      const key = claimedKeyOf(event);
      if (!key) {
        const rows: Array<{ received_at: Date }> = await db('inbound_events').insert(inboundEventRow(event)).returning('received_at');
        return { recorded: true, receivedAt: rows[0]?.received_at ?? null };
      }
      const { payload, ...row } = inboundEventRow(event);
      const { rows } = await db.raw(
        `WITH claimed AS (${key.claim}
         ) INSERT INTO inbound_events
           SELECT r.* FROM claimed c CROSS JOIN LATERAL jsonb_populate_record(CAST(NULL AS inbound_events), CAST(:row AS jsonb) ||
             jsonb_build_object('payload', CAST(:payload AS jsonb), 'received_at', c.created_at, 'created_at', c.created_at)) r
           RETURNING received_at`,
        { row: jsonOf(row), payload, id: event.id, tenantId: event.tenantId ?? null, value: key.value },
      );
      if (rows.length > 0) return { recorded: true, receivedAt: rows[0].received_at };
      if (key.table === 'request') return { recorded: false, receivedAt: null };
      // Junk is stored once per body: a repeat only counts (it is no new event to answer differently). A statement of its
      // own, so that it sees the first copy's row once the key's conflict has waited for it to commit.
      const counted: { rows: Array<{ received_at: Date }> } = await db.raw(
        `UPDATE inbound_events e SET occurrences = e.occurrences + 1
           FROM inbound_event_digest_keys k
          WHERE k.raw_sha256 = ? AND e.id = k.event_id AND e.created_at = k.created_at
          RETURNING e.received_at`,
        [key.value],
      );
      return { recorded: true, receivedAt: counted.rows[0]?.received_at ?? null };
    },

    /**
     * The payment reconciliation credited for this provider transaction (its record, flagged
     * found_by_reconciliation), through that flag's partial index; undefined when no run credited it.
     */
    async foundByReconciliation(
      transactionId: string,
    ): Promise<
      { entryId: string; tenantId: string; accountId: string; aliasAccountRef: string; grossAmount: Kobo; fee: Kobo } | undefined
    > {
      const row:
        | { entry_id: string; tenant_id: string; account_id: string; alias_account_ref: string; gross_amount: string; fee: string }
        | undefined = await db('inbound_events')
        .where({ transaction_id: transactionId })
        .whereRaw(`flags @> ARRAY['${FOUND_BY_RECONCILIATION}']`)
        .whereNotNull('entry_id')
        .first('entry_id', 'tenant_id', 'account_id', 'alias_account_ref', 'gross_amount', 'fee');
      return row
        ? {
            entryId: row.entry_id,
            tenantId: row.tenant_id,
            accountId: row.account_id,
            aliasAccountRef: row.alias_account_ref,
            grossAmount: koboFromDb(row.gross_amount),
            fee: koboFromDb(row.fee),
          }
        : undefined;
    },

    /** Newest first, with the account's reference; `beforeId` is the previous page's last id. */
    async listProcessingErrors(
      tenantId: string,
      beforeId: string | null,
      limit: number,
    ): Promise<Array<InboundEventRecord & { accountRef: string | null }>> {
      const query = db('inbound_events')
        .leftJoin('virtual_accounts', 'virtual_accounts.id', 'inbound_events.account_id')
        .where({ 'inbound_events.tenant_id': tenantId, 'inbound_events.category': 'processing_error' })
        .orderBy('inbound_events.id', 'desc')
        .limit(limit)
        .select([...RECORD_COLUMNS.map((column) => `inbound_events.${column}`), 'virtual_accounts.account_ref', ...payloadFields(db)]);
      if (beforeId) query.where('inbound_events.id', '<', beforeId);
      const rows: Array<EventRow & { account_ref: string | null }> = await query;
      return rows.map((row) => ({ ...toRecord(row), accountRef: row.account_ref }));
    },

    async listMisdirected(tenantId: string, afterId: string | null, limit: number): Promise<InboundEventRecord[]> {
      const query = db('inbound_events')
        .where({ tenant_id: tenantId, category: 'misdirected' })
        .orderBy('id', 'desc')
        .limit(limit)
        .select([...RECORD_COLUMNS, ...payloadFields(db)]);
      if (afterId) query.where('id', '<', afterId);
      const rows: EventRow[] = await query;
      return rows.map(toRecord);
    },

    async findMisdirectedForUpdate(tenantId: string, id: string): Promise<InboundEventRecord | undefined> {
      const row: EventRow | undefined = await db('inbound_events')
        .where({ tenant_id: tenantId, id, category: 'misdirected' })
        .forUpdate()
        .first([...RECORD_COLUMNS, ...payloadFields(db)]);
      return row ? toRecord(row) : undefined;
    },

    async markAssigned(id: string, assignment: { accountId: string; entryId: string; userId: string }): Promise<void> {
      await db('inbound_events').where({ id }).whereNull('assigned_at').update({
        assigned_account_id: assignment.accountId,
        assigned_entry_id: assignment.entryId,
        assigned_by: assignment.userId,
        assigned_at: db.fn.now(),
      });
    },
  };
}
