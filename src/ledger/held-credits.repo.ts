import type { DbOrTrx } from '../db';
import { koboFromDb, type Kobo } from '../money';
import { HELD_CREDIT_KINDS, HELD_CREDIT_KINDS_SQL, QUEUED_KINDS, type ReservationKind } from './reservation-kinds';

/** An account's open hold as the queue shows it: who, how much, since when, which limit. */
export interface HeldCredit {
  entryId: string;
  /** The credit's transaction group, as the tenant's events name it. */
  transactionGroupId: string;
  accountId: string;
  accountRef: string;
  customerId: string;
  customerName: string;
  tier: number;
  held: Kobo;
  creditAmount: Kobo;
  senderName: string;
  /**
   * Which KYC limit the credit went over, `amount_mismatch` (a dynamic account's payment held to return to its payer)
   * or `velocity_rule` (past a velocity rule of the tenant's over credits).
   */
  limitKind: 'single_credit' | 'balance' | 'amount_mismatch' | 'velocity_rule';
  /** The limit, a mismatch's expected amount; 0 for a velocity rule (its note says which). */
  limitAmount: Kobo;
  /** The velocity rule's message for a credit it holds; null for the others. */
  note: string | null;
  since: Date;
  /** The credit's status: only a confirmed credit's held money can be returned. */
  creditStatus: string;
}

interface HeldCreditRow {
  entry_id: string;
  transaction_group_id: string;
  account_id: string;
  account_ref: string;
  customer_id: string;
  customer_name: string;
  tier: number;
  held: string;
  credit_amount: string;
  sender_name: string;
  limit_kind: HeldCredit['limitKind'];
  limit_amount: string | null;
  note: string | null;
  since: Date;
  credit_status: string;
}

/** What the ledger's holds still hold of each of these credits (none: absent). */
export async function openHeldOf(db: DbOrTrx, entryIds: string[]): Promise<Map<string, Kobo>> {
  if (entryIds.length === 0) return new Map();
  const rows: Array<{ entry_id: string; held: string }> = await db('ledger_reservations')
    .whereIn('owner_id', entryIds)
    .whereIn('kind', HELD_CREDIT_KINDS)
    .where('open_amount', '>', 0)
    .select('owner_id as entry_id', 'open_amount as held');
  return new Map(rows.map((row) => [row.entry_id, koboFromDb(row.held)]));
}

/**
 * Reads of the ledger's holds (which only the ledger writes), for the operators' queue (src/kyc-limits/): the
 * reservations of the queued kinds only (see queued), the ones the queue decides on.
 */
export function createHeldCreditsRepo(db: DbOrTrx) {
  const open = () =>
    db('ledger_reservations as h')
      .join('virtual_accounts as a', 'a.id', 'h.account_id')
      .join('customers as c', 'c.id', 'a.customer_id')
      .join('ledger_entries as e', 'e.id', 'h.owner_id')
      .whereIn('h.kind', QUEUED_KINDS)
      .where('h.open_amount', '>', 0)
      .select(
        'h.owner_id as entry_id',
        'e.transaction_group_id',
        'h.account_id',
        'a.account_ref',
        'c.id as customer_id',
        'c.name as customer_name',
        'h.tier',
        'h.open_amount as held',
        'e.amount as credit_amount',
        'e.narration as sender_name',
        'h.reason as limit_kind',
        'h.limit_amount',
        'h.note',
        'h.created_at as since',
        'e.status as credit_status',
      );
  const toHeld = (row: HeldCreditRow): HeldCredit => ({
    entryId: row.entry_id,
    transactionGroupId: row.transaction_group_id,
    accountId: row.account_id,
    accountRef: row.account_ref,
    customerId: row.customer_id,
    customerName: row.customer_name,
    tier: row.tier,
    held: koboFromDb(row.held),
    creditAmount: koboFromDb(row.credit_amount),
    senderName: row.sender_name,
    limitKind: row.limit_kind,
    limitAmount: row.limit_amount === null ? 0n : koboFromDb(row.limit_amount),
    note: row.note,
    since: row.since,
    creditStatus: row.credit_status,
  });
  return {
    /** Oldest first: the money waiting longest is the next work. */
    async listOpen(tenantId: string, limit: number): Promise<HeldCredit[]> {
      const rows: HeldCreditRow[] = await open().where('h.tenant_id', tenantId).orderBy('h.created_at').limit(limit);
      return rows.map(toHeld);
    },

    async findOpen(tenantId: string, entryId: string): Promise<HeldCredit | undefined> {
      const row: HeldCreditRow | undefined = await open().where({ 'h.tenant_id': tenantId, 'h.owner_id': entryId }).first();
      return row ? toHeld(row) : undefined;
    },

    /** Whether the held money of this tenant's credit was returned to its payer. */
    async wasReturned(tenantId: string, entryId: string): Promise<boolean> {
      return (
        (await db('ledger_reservations')
          .where({ tenant_id: tenantId, owner_id: entryId })
          .whereIn('kind', QUEUED_KINDS)
          .where('posted', '>', 0)
          .first('id')) !== undefined
      );
    },

    /** The kind of another feature's reservation (not queued) still holding this tenant's credit; undefined when none does. */
    async heldOutsideQueue(tenantId: string, entryId: string): Promise<ReservationKind | undefined> {
      const row: { kind: ReservationKind } | undefined = await db('ledger_reservations')
        .where({ tenant_id: tenantId, owner_id: entryId })
        .whereIn('kind', HELD_CREDIT_KINDS)
        .whereNotIn('kind', QUEUED_KINDS)
        .where('open_amount', '>', 0)
        .first('kind');
      return row?.kind;
    },

    /**
     * The credit and, when its money is held again after a failed return (held on the credit reversing the
     * return's debit), the returned credit it came from, or when it restores a reversed payment, that payment,
     * and so on back: the credits whose payer it is.
     */
    async heldFrom(entryId: string): Promise<string[]> {
      const result = await db.raw(
        `WITH RECURSIVE origin(id) AS (
           SELECT CAST(? AS uuid)
           UNION ALL
           SELECT coalesce(r.owner_id, rev.reverses_entry_id)
             FROM origin o
             JOIN ledger_entries e ON e.id = o.id
             LEFT JOIN ledger_reservation_changes p ON p.entry_id = e.reverses_entry_id AND p.outcome = 'posted'
             LEFT JOIN ledger_reservations r ON r.id = p.reservation_id AND r.kind IN ${HELD_CREDIT_KINDS_SQL}
             LEFT JOIN ledger_entries rev ON e.kind = 'adjustment' AND e.direction = 'credit' AND rev.id = e.reverses_entry_id AND rev.kind = 'reversal'
            WHERE r.owner_id IS NOT NULL OR rev.id IS NOT NULL
         )
         SELECT id FROM origin`,
        [entryId],
      );
      return (result.rows as Array<{ id: string }>).map((row) => row.id);
    },
  };
}
