import type { DbOrTrx } from '../db';
import { koboFromDb, type Kobo } from '../money';
import type { MismatchAction, PaymentJudgement, Variance } from '../policies/dynamic-account-amount/amount-policy';
import type { FundsSource } from './ledger.types';
import { HELD_CREDIT_KINDS_SQL, RESERVATION_KIND_NAMES, type ReservationKind } from './reservation-kinds';

/**
 * The ledger's reads for other modules. Only src/ledger/ names the ledger's tables: a caller whose one
 * statement reads its own rows beside the ledger's (a reconciliation page, a confirmation round) takes
 * the ledger's part from here as SQL text, composed into that statement, so a hot read stays one round
 * trip; a read that is the ledger's alone is a function returning plain records.
 */

/**
 * LEFT JOINs of a payment credit and the entries answering it, looked up by provider transaction id
 * (`txnRef`, an expression of the caller's row), for a caller's FROM clause. They introduce the aliases
 * `e` (the payment credit; one per provider transaction), `rev` (its reversal), `adj` (the restoration
 * reversing that reversal) and `comp` (the compensation of the credit or of its restoration), each with
 * the entries' columns (id, kind, status, amount, fee, narration, created_at, status_changed_at, ...).
 * `when`: a condition of the caller's row under which the credit is looked for at all.
 */
export function paymentCreditAnswersJoins(txnRef: string, when?: string): string {
  // Through the credit's key, which names the entry by its whole key: one probe of one month's partition.
  return `LEFT JOIN ledger_payment_credit_keys payment_key ON ${when ? `${when} AND ` : ''}payment_key.provider_txn_ref = ${txnRef}
      LEFT JOIN ledger_entries e ON e.id = payment_key.entry_id AND e.created_at = payment_key.created_at
      LEFT JOIN ledger_entries rev ON rev.reverses_entry_id = e.id AND rev.kind = 'reversal'
      LEFT JOIN ledger_entries adj ON adj.reverses_entry_id = rev.id AND adj.kind = 'adjustment'
      LEFT JOIN ledger_entries comp ON comp.reverses_entry_id = coalesce(adj.id, e.id) AND comp.kind = 'adjustment' AND comp.direction = 'debit'`;
}

/**
 * A SELECT of the confirmed payment credits (columns id, provider_txn_ref) of one account (`accountId`,
 * an expression, e.g. a lateral join's account) created in [`from`, `to`] (expressions): an index scan
 * on (account_id, created_at).
 */
export function confirmedPaymentCreditsOfAccountSql(accountId: string, from: string, to: string): string {
  return `SELECT id, provider_txn_ref FROM ledger_entries e
              WHERE e.account_id = ${accountId} AND e.created_at >= ${from} AND e.created_at <= ${to}
                AND e.kind = 'payment' AND e.direction = 'credit' AND e.status = 'confirmed'`;
}

/** An EXISTS test: a payment entry was made for the provider transaction `txnRef` (an expression): its key was. */
export function paymentEntryExistsSql(txnRef: string): string {
  return `EXISTS (SELECT 1 FROM ledger_payment_credit_keys k WHERE k.provider_txn_ref = ${txnRef})`;
}

/**
 * A relation (for a caller's FROM clause, under an alias of its choice) of the payment credits among the
 * entry ids `entryIds` (an expression of type uuid[]), with the entries' columns.
 */
export function paymentCreditsAmongSql(entryIds: string): string {
  return `(SELECT * FROM ledger_entries WHERE id = ANY(${entryIds}) AND kind = 'payment' AND direction = 'credit')`;
}

/**
 * A SELECT of a credit's hold (entry_id, account_id, kind, amount, tier, limit_kind, limit_amount, and the credit's amount
 * as credit_amount: the columns posting_held returns) for the credit `entryId` (an expression): no row when the
 * credit is not held.
 */
export function creditHoldSql(entryId: string): string {
  return `SELECT r.owner_id AS entry_id, r.account_id, r.kind, r.amount, r.tier, r.reason AS limit_kind, r.limit_amount, e.amount AS credit_amount
      FROM ledger_reservations r JOIN ledger_entries e ON e.id = r.owner_id
     WHERE r.owner_id = ${entryId} AND r.kind IN ${HELD_CREDIT_KINDS_SQL}`;
}

/** A reservation still open on an account, as a feature lists its own (a lien's: kept for the lien's id). */
export interface OpenReservation {
  ownerId: string;
  reason: string;
  amount: Kobo;
  /** What it still holds. */
  open: Kobo;
  expiresAt: Date | null;
  createdAt: Date;
}

/** The account's open reservations of one kind, oldest first. */
export async function openReservationsOf(db: DbOrTrx, accountId: string, kind: ReservationKind): Promise<OpenReservation[]> {
  const rows: Array<{ owner_id: string; reason: string; amount: string; open_amount: string; expires_at: Date | null; created_at: Date }> =
    await db('ledger_reservations')
      .where({ account_id: accountId, kind })
      .where('open_amount', '>', 0)
      .orderBy('id')
      .select('owner_id', 'reason', 'amount', 'open_amount', 'expires_at', 'created_at');
  return rows.map((row) => ({
    ownerId: row.owner_id,
    reason: row.reason,
    amount: koboFromDb(row.amount),
    open: koboFromDb(row.open_amount),
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  }));
}

/** An account's money as one read of the ledger saw it. */
export interface AccountFunds {
  ledgerBalance: Kobo;
  pendingCredits: Kobo;
  /** The sum of the account's open reservations. */
  heldBalance: Kobo;
  /** The same money by kind: every declared kind, 0 when none. */
  reserved: Record<ReservationKind, Kobo>;
  /** What a payout may spend under each rule (ledger_spendable), never below zero. */
  spendable: Record<FundsSource, Kobo>;
}

/** Each account's funds (see AccountFunds), in one statement: its reservations and its totals agree. */
export async function accountFundsOf(db: DbOrTrx, accountIds: string[]): Promise<Map<string, AccountFunds>> {
  if (accountIds.length === 0) return new Map();
  const result = await db.raw(
    `SELECT a.id, a.ledger_balance, a.pending_credits, a.held_balance,
            greatest(0, ledger_spendable(a.ledger_balance, a.held_balance, a.pending_credits, false)) AS spend_ledger,
            greatest(0, ledger_spendable(a.ledger_balance, a.held_balance, a.pending_credits, true)) AS spend_available,
            coalesce((SELECT jsonb_object_agg(r.kind, r.open)
                        FROM (SELECT kind, sum(open_amount) AS open FROM ledger_reservations
                               WHERE account_id = a.id AND open_amount > 0 GROUP BY kind) r), '{}') AS reserved
       FROM virtual_accounts a
      WHERE a.id = ANY(CAST(? AS uuid[]))`,
    [accountIds],
  );
  const rows = result.rows as Array<{
    id: string;
    ledger_balance: string;
    pending_credits: string;
    held_balance: string;
    spend_ledger: string;
    spend_available: string;
    reserved: Record<string, string | number>;
  }>;
  return new Map(
    rows.map((row) => [
      row.id,
      {
        ledgerBalance: koboFromDb(row.ledger_balance),
        pendingCredits: koboFromDb(row.pending_credits),
        heldBalance: koboFromDb(row.held_balance),
        reserved: Object.fromEntries(RESERVATION_KIND_NAMES.map((kind) => [kind, koboFromDb(row.reserved[kind] ?? 0)])) as Record<
          ReservationKind,
          Kobo
        >,
        spendable: { ledger: koboFromDb(row.spend_ledger), available: koboFromDb(row.spend_available) },
      },
    ]),
  );
}

/** Money in and out of a tenant's accounts on one day. */
export interface DailyFlow {
  day: string;
  inflow: Kobo;
  outflow: Kobo;
}

/**
 * Money in (payment credits, net of the provider's fee) and out (settlement debits) per day in time zone
 * `zone` over the last `span` days and today; reversed entries count on neither side. Days with nothing are zero.
 */
export async function dailyFlowsOfTenant(db: DbOrTrx, tenantId: string, zone: string, span: number): Promise<DailyFlow[]> {
  const result: { rows: Array<{ day: string; inflow: string | null; outflow: string | null }> } = await db.raw(
    `WITH days AS (
       SELECT generate_series(
         date_trunc('day', now() AT TIME ZONE :zone) - make_interval(days => :span),
         date_trunc('day', now() AT TIME ZONE :zone),
         interval '1 day') AS day
     ),
     flows AS (
       SELECT date_trunc('day', e.created_at AT TIME ZONE :zone) AS day,
              sum(e.amount) FILTER (WHERE e.direction = 'credit' AND e.kind = 'payment') AS inflow,
              sum(e.amount) FILTER (WHERE e.direction = 'debit' AND e.kind = 'settlement') AS outflow
         FROM ledger_entries e
        WHERE e.account_id IN (SELECT id FROM virtual_accounts WHERE tenant_id = :tenantId)
          AND e.created_at >= (date_trunc('day', now() AT TIME ZONE :zone) - make_interval(days => :span)) AT TIME ZONE :zone
          AND e.status <> 'reversed'
        GROUP BY 1
     )
     SELECT to_char(days.day, 'YYYY-MM-DD') AS day, flows.inflow, flows.outflow
       FROM days LEFT JOIN flows ON flows.day = days.day
      ORDER BY days.day`,
    { zone, span, tenantId },
  );
  return result.rows.map((row) => ({ day: row.day, inflow: koboFromDb(row.inflow ?? 0), outflow: koboFromDb(row.outflow ?? 0) }));
}

/**
 * The ledger's figures of the pipeline metrics (src/metrics/ sits below the ledger, so src/main/ hands
 * these to it). Each reads a partial or time index made for it (migration 20261123000500).
 */
export function createLedgerPipelineReads(db: DbOrTrx) {
  return {
    /** Payment credits still provisional, and the age of the oldest. */
    async pendingConfirmations(): Promise<{ count: number; oldestAgeSeconds: number }> {
      const { rows } = await db.raw(
        `SELECT count(*) AS count, coalesce(extract(epoch FROM now() - min(created_at)), 0) AS oldest
           FROM ledger_entries WHERE kind = 'payment' AND status = 'provisional'`,
      );
      const row = rows[0] as { count: string; oldest: string };
      return { count: Number(row.count), oldestAgeSeconds: Number(row.oldest) };
    },

    /** Money held over KYC limits, across tenants (the open holds' partial index). */
    async heldMoney(): Promise<{ credits: number; naira: number; oldestAgeSeconds: number }> {
      const { rows } = await db.raw(
        `SELECT count(*) AS credits, coalesce(sum(open_amount), 0) AS kobo, coalesce(extract(epoch FROM now() - min(created_at)), 0) AS oldest
           FROM ledger_reservations WHERE open_amount > 0 AND kind IN ${HELD_CREDIT_KINDS_SQL}`,
      );
      const row = rows[0] as { credits: string; kobo: string; oldest: string };
      return { credits: Number(row.credits), naira: Number(row.kobo) / 100, oldestAgeSeconds: Number(row.oldest) };
    },

    /** Payment credits whose status changed in (from, until]: seconds from posting to each confirmation, and the number reversed. */
    async paymentChangesBetween(from: Date, until: Date): Promise<{ confirmationLagsSeconds: number[]; paymentsReversed: number }> {
      const { rows } = await db.raw(
        `SELECT coalesce(array_agg(extract(epoch FROM status_changed_at - created_at)) FILTER (WHERE status = 'confirmed'), '{}') AS lags,
                count(*) FILTER (WHERE status = 'reversed') AS reversed
           FROM ledger_entries
          WHERE status_changed_at > ? AND status_changed_at <= ? AND status_changed_at IS NOT NULL AND kind = 'payment'`,
        [from, until],
      );
      const row = rows[0] as { lags: Array<string | number>; reversed: string };
      return { confirmationLagsSeconds: row.lags.map(Number), paymentsReversed: Number(row.reversed) };
    },
  };
}

export type LedgerPipelineReads = ReturnType<typeof createLedgerPipelineReads>;

/** How a dynamic account judged a payment credit; undefined for a credit to an ordinary account. */
export async function paymentJudgementOf(db: DbOrTrx, entryId: string): Promise<PaymentJudgement | undefined> {
  const row: { expected_amount: string | null; amount_received: string; variance: Variance; action: MismatchAction } | undefined = await db(
    'ledger_payment_variances',
  )
    .where({ entry_id: entryId })
    .first('expected_amount', 'amount_received', 'variance', 'action');
  if (!row) return undefined;
  return {
    expectedAmount: row.expected_amount === null ? null : koboFromDb(row.expected_amount),
    amountReceived: koboFromDb(row.amount_received),
    variance: row.variance,
    action: row.action,
  };
}

/**
 * A relation (for a caller's FROM clause, under an alias of its choice) of the confirmed payment credits (a
 * payment, or the restoration of a reversed one, which was judged again) whose
 * whole amount a dynamic account holds to return (a provisional one may still be reversed, so it waits) and
 * which are still held: entry_id, tenant_id, account_id, transaction_group_id, variance and created_at (the
 * hold's). Read oldest first (ORDER BY created_at), it walks the index of open amount-mismatch holds only.
 */
export const HELD_MISMATCHES_TO_RETURN_SQL = `(SELECT r.owner_id AS entry_id, r.tenant_id, r.account_id, e.transaction_group_id, v.variance, r.created_at
     FROM ledger_reservations r
     JOIN ledger_entries e ON e.id = r.owner_id
     JOIN ledger_payment_variances v ON v.entry_id = r.owner_id
    WHERE r.kind = 'payment_mismatch' AND r.open_amount > 0 AND e.kind IN ('payment', 'adjustment') AND e.status = 'confirmed'
      AND v.action = 'return')`;

/**
 * The payments credited to an account, or to any account of its customer (`scope`), in the last `windowSeconds` by
 * the clock (not the transaction's start: a credit committed while the caller waited for the account's locks is in
 * it): how many and their total, held or not. Read under the locks that serialise those credits (the customer's row,
 * then the account's) it stays true until the caller posts; an index scan on (account_id, created_at) per account.
 */
export async function paymentCreditsWithin(
  db: DbOrTrx,
  window: { accountId: string; scope: 'account' | 'customer'; windowSeconds: number },
): Promise<{ count: bigint; amount: Kobo }> {
  const accounts =
    window.scope === 'account'
      ? 'SELECT CAST(:account_id AS uuid)'
      : 'SELECT id FROM virtual_accounts WHERE customer_id = (SELECT customer_id FROM virtual_accounts WHERE id = :account_id)';
  const result = await db.raw(
    `SELECT count(*) AS count, coalesce(sum(e.amount), 0) AS amount FROM ledger_entries e
      WHERE e.account_id IN (${accounts}) AND e.kind = 'payment' AND e.direction = 'credit'
        AND e.created_at > clock_timestamp() - make_interval(secs => :window_seconds)`,
    { account_id: window.accountId, window_seconds: window.windowSeconds },
  );
  const row = result.rows[0] as { count: string; amount: string };
  return { count: BigInt(row.count), amount: koboFromDb(row.amount) };
}

/** A payment's credit as a refund of it judges it: what it credited, and what of it is held or was returned held. */
export interface PaymentCredit {
  entryId: string;
  accountId: string;
  transactionGroupId: string;
  amount: Kobo;
  status: 'provisional' | 'confirmed' | 'reversed';
  /** A compensating debit took it back (the provider reported the payment failed or refunded after confirming it). */
  takenBack: boolean;
  /** What reservations still hold of it (KYC limits, a mismatch, a velocity rule, a freeze). */
  held: Kobo;
  /** What of its held money was posted by a return to its payer (the held-money queue's or a mismatch return). */
  returnedHeld: Kobo;
}

/**
 * The payment credit of the tenant's transaction group `transactionGroupId` (a payment the provider's webhook, an
 * operator's assignment or reconciliation credited); undefined when the tenant has none of that group.
 */
export async function paymentCreditOf(db: DbOrTrx, tenantId: string, transactionGroupId: string): Promise<PaymentCredit | undefined> {
  const result = await db.raw(
    `SELECT e.id, e.account_id, e.transaction_group_id, e.amount, e.status,
            EXISTS (SELECT 1 FROM ledger_entries c WHERE c.reverses_entry_id = e.id AND c.kind = 'adjustment' AND c.direction = 'debit') AS taken_back,
            coalesce(sum(r.open_amount), 0) AS held, coalesce(sum(r.posted), 0) AS returned_held
       FROM ledger_entries e
       LEFT JOIN ledger_reservations r ON r.owner_id = e.id AND r.kind IN ${HELD_CREDIT_KINDS_SQL}
      WHERE e.tenant_id = ? AND e.transaction_group_id = ? AND e.kind = 'payment' AND e.direction = 'credit'
      GROUP BY e.id, e.created_at
      LIMIT 1`,
    [tenantId, transactionGroupId],
  );
  const row = result.rows[0] as
    | {
        id: string;
        account_id: string;
        transaction_group_id: string;
        amount: string;
        status: PaymentCredit['status'];
        taken_back: boolean;
        held: string;
        returned_held: string;
      }
    | undefined;
  if (!row) return undefined;
  return {
    entryId: row.id,
    accountId: row.account_id,
    transactionGroupId: row.transaction_group_id,
    amount: koboFromDb(row.amount),
    status: row.status,
    takenBack: row.taken_back,
    held: koboFromDb(row.held),
    returnedHeld: koboFromDb(row.returned_held),
  };
}
