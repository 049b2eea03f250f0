import type { Trx } from '../db';
import type { FundsSource } from './ledger.types';
import { uuidv7 } from '../ids';
import { customerLimitsSql } from '../policies/kyc-limits/customer-limits';
import { koboFromDb, type Kobo } from '../money';
import type { OpenHolds } from '../policies/kyc-limits/credit-limits';
import { createLedgerRepo } from './ledger.repo';
import {
  HELD_CREDIT_KINDS,
  HELD_CREDIT_KINDS_SQL,
  QUEUED_KINDS,
  releasableFor,
  type QueuedKind,
  type ReleaseReason,
  type ReservationKind,
  type ReservationReason,
} from './reservation-kinds';

/**
 * Reservations: money on an account set aside, which the account may not spend until the reservation is posted
 * (it becomes the transaction it was kept for, in whole or in part), released, or expires. The account's
 * held balance is the sum of its open reservations, and its customer's unheld balance moves the other way, in
 * the same transaction as the reservation's row. Written only by the ledger, always with the customer's row and
 * then the account's locked first: reserve, release, post and ofOwner take those locks themselves (in the order
 * every posting takes them; taking them again in a transaction that holds them already is harmless), so a feature
 * needs nothing else to set money aside. A caller touching several accounts locks them all first, together
 * (lockAccounts), so two such transactions never wait for each other crosswise. The posting statement writes the
 * reservations of the credits it judges itself (see posting-ctes).
 */

export interface NewReservation<Kind extends ReservationKind = ReservationKind> {
  accountId: string;
  kind: Kind;
  reason: ReservationReason<Kind>;
  /** What it is kept for (a held credit's: the credit's entry id); one reservation of a kind per owner. */
  ownerId: string;
  amount: Kobo;
  tier?: number | null;
  limitAmount?: Kobo | null;
  /** The words behind the reason, when a rule gave them (a velocity rule's message). */
  note?: string | null;
  expiresAt?: Date | null;
}

/**
 * Part (or all) of one reservation to release, and why: a reason its kind declares (a person's own words go to
 * `note`). The kind is the reservation's: a release naming another is refused.
 */
export type Release = { [Kind in ReservationKind]: ReleaseOf<Kind> }[ReservationKind];

interface ReleaseOf<Kind extends ReservationKind> {
  reservationId: string;
  kind: Kind;
  amount: Kobo;
  reason: ReleaseReason<Kind>;
  userId: string | null;
  note: string | null;
}

/** A reservation as its kind's feature reads it: what it was, and what it still holds. */
export interface OwnedReservation {
  reservationId: string;
  tenantId: string;
  accountId: string;
  amount: Kobo;
  open: Kobo;
}

/** Part (or all) of one reservation posted by an entry (written later in the same transaction): what it was kept for. */
export interface Posting {
  reservationId: string;
  entryId: string;
  amount: Kobo;
  userId: string | null;
  note: string | null;
}

/** A reservation released because its time ran out. */
export interface ExpiredReservation {
  reservationId: string;
  tenantId: string;
  accountId: string;
  kind: ReservationKind;
  ownerId: string;
  amount: Kobo;
}

/** Reservations per INSERT statement when many are made at once (a 5,000-item batch's take ten). */
const RESERVE_CHUNK = 500;

/** Moves accounts' held balances by each move's kobo, and their customers' unheld balances the other way, in one statement. */
async function moveReserved(trx: Trx, moves: Array<{ accountId: string; kobo: Kobo }>): Promise<void> {
  const nonZero = moves.filter((move) => move.kobo !== 0n);
  if (nonZero.length === 0) return;
  await trx.raw(
    `WITH moves AS (
       SELECT account_id, sum(kobo) AS kobo FROM unnest(CAST(:accounts AS uuid[]), CAST(:kobo AS bigint[])) AS m(account_id, kobo) GROUP BY account_id
     ), accounts AS (
       UPDATE virtual_accounts a SET held_balance = a.held_balance + m.kobo, updated_at = now() FROM moves m WHERE a.id = m.account_id
       RETURNING a.customer_id, m.kobo
     )
     UPDATE customers c SET unheld_balance = c.unheld_balance - s.kobo
       FROM (SELECT customer_id, sum(kobo) AS kobo FROM accounts GROUP BY customer_id) s
      WHERE c.id = s.customer_id`,
    { accounts: nonZero.map((move) => move.accountId), kobo: nonZero.map((move) => move.kobo.toString()) },
  );
}

/**
 * Releases every reservation whose expiry is at or before `now` (the part still open, as 'expired'), locking each
 * account's customer and then the account first, as every posting does; what expired. Up to `limit` accounts'
 * reservations per call: a caller on a clock calls again until nothing is left.
 */
export async function expireDue(trx: Trx, now: Date, limit = 500): Promise<ExpiredReservation[]> {
  const due: Array<{ account_id: string }> = await trx('ledger_reservations')
    .where('expires_at', '<=', now)
    .where('open_amount', '>', 0)
    // An account whose tenant moved to another cluster expires its reservations there; here the fence would refuse
    // the release and roll back every other account's with it.
    .whereNotExists((moved) =>
      moved
        .select(trx.raw('1'))
        .from('virtual_accounts as va')
        .whereRaw('va.id = ledger_reservations.account_id')
        .whereNotNull('va.moved_out_at'),
    )
    .distinct('account_id')
    .limit(limit);
  if (due.length === 0) return [];
  const accountIds = due.map((row) => row.account_id);
  await createLedgerRepo(trx).lockAccounts(trx, accountIds);
  const result = await trx.raw(
    `WITH due AS (
       SELECT id, tenant_id, account_id, kind, owner_id, open_amount AS amount
         FROM ledger_reservations
        WHERE account_id = ANY(CAST(:accounts AS uuid[])) AND expires_at <= :now AND open_amount > 0
          FOR UPDATE
     ), expired AS (
       UPDATE ledger_reservations r SET released = r.released + d.amount FROM due d WHERE r.id = d.id RETURNING r.id
     ), recorded AS (
       INSERT INTO ledger_reservation_changes (id, reservation_id, tenant_id, account_id, outcome, amount)
       SELECT gen_random_uuid(), id, tenant_id, account_id, 'expired', amount FROM due
     )
     SELECT d.* FROM due d JOIN expired e ON e.id = d.id`,
    { accounts: accountIds, now },
  );
  const rows = result.rows as Array<{
    id: string;
    tenant_id: string;
    account_id: string;
    kind: ReservationKind;
    owner_id: string;
    amount: string;
  }>;
  const expired = rows.map((row) => ({
    reservationId: row.id,
    tenantId: row.tenant_id,
    accountId: row.account_id,
    kind: row.kind,
    ownerId: row.owner_id,
    amount: koboFromDb(row.amount),
  }));
  await moveReserved(
    trx,
    expired.map((reservation) => ({ accountId: reservation.accountId, kobo: -reservation.amount })),
  );
  return expired;
}

/**
 * The reservations' operations in a transaction: reserve, release, post and ofOwner take the customer's and then the
 * account's lock themselves; call the others with those rows locked.
 */
export function createReservations(trx: Trx) {
  /** The customers' rows and then the accounts', as every posting locks them (again: harmless when held already). */
  const lock = (accountIds: string[]) => createLedgerRepo(trx).lockAccounts(trx, accountIds);

  /**
   * Releases what is still reserved of a credit of the account being reversed or taken back; the amount released (0
   * when none). Only the account's own reservations: the caller moves that account's held balance by the amount.
   */
  async function closeHeldCredit(accountId: string, entryId: string): Promise<Kobo> {
    const result = await trx.raw(
      `WITH open AS (
         SELECT id, tenant_id, account_id, open_amount AS amount FROM ledger_reservations
          WHERE owner_id = ? AND account_id = ? AND kind IN ${HELD_CREDIT_KINDS_SQL} AND open_amount > 0 FOR UPDATE
       ), closed AS (
         UPDATE ledger_reservations r SET released = r.released + o.amount FROM open o WHERE r.id = o.id RETURNING r.id
       ), recorded AS (
         INSERT INTO ledger_reservation_changes (id, reservation_id, tenant_id, account_id, outcome, amount, reason)
         SELECT gen_random_uuid(), id, tenant_id, account_id, 'released', amount, 'credit_reversed' FROM open
       )
       SELECT coalesce(sum(amount), 0) AS amount FROM open`,
      [entryId, accountId],
    );
    return koboFromDb((result.rows[0] as { amount: string }).amount);
  }

  /** Sets money aside on the account (locking it first); the reservation's id. */
  async function reserve(reservation: NewReservation): Promise<string> {
    await lock([reservation.accountId]);
    const id = uuidv7();
    await trx('ledger_reservations').insert({
      id,
      tenant_id: trx.raw('(SELECT tenant_id FROM virtual_accounts WHERE id = ?)', [reservation.accountId]),
      account_id: reservation.accountId,
      kind: reservation.kind,
      reason: reservation.reason,
      owner_id: reservation.ownerId,
      amount: reservation.amount.toString(),
      tier: reservation.tier ?? null,
      limit_amount: reservation.limitAmount?.toString() ?? null,
      note: reservation.note ?? null,
      expires_at: reservation.expiresAt ?? null,
    });
    await moveReserved(trx, [{ accountId: reservation.accountId, kobo: reservation.amount }]);
    return id;
  }

  /**
   * Records one change of a reservation (posted, or released: of the kind named) within what it still holds; refused
   * beyond it.
   */
  async function change(
    accountId: string,
    change: {
      reservationId: string;
      amount: Kobo;
      outcome: 'posted' | 'released';
      kind: ReservationKind | null;
      reason: ReleaseReason | null;
      entryId: string | null;
    },
    by: { userId: string | null; note: string | null },
  ): Promise<void> {
    const column = change.outcome === 'posted' ? 'posted' : 'released';
    const result = await trx.raw(
      `WITH changed AS (
         UPDATE ledger_reservations SET ${column} = ${column} + CAST(:amount AS bigint)
          WHERE id = :reservation_id AND account_id = :account_id AND open_amount >= CAST(:amount AS bigint)
            AND (CAST(:kind AS text) IS NULL OR kind = :kind)
         RETURNING id, tenant_id, account_id
       )
       INSERT INTO ledger_reservation_changes (id, reservation_id, tenant_id, account_id, outcome, amount, reason, entry_id, user_id, note)
       SELECT :id, id, tenant_id, account_id, :outcome, :amount, :reason, :entry_id, :user_id, :note FROM changed
       RETURNING id`,
      {
        id: uuidv7(),
        reservation_id: change.reservationId,
        account_id: accountId,
        amount: change.amount.toString(),
        kind: change.kind,
        outcome: change.outcome,
        reason: change.reason,
        entry_id: change.entryId,
        user_id: by.userId,
        note: by.note,
      },
    );
    if (result.rows.length !== 1)
      throw new Error(
        `reservation ${change.reservationId}${change.kind ? ` of kind ${change.kind}` : ''} does not have ${change.amount} kobo left to ${change.outcome === 'posted' ? 'post' : 'release'}`,
      );
  }

  return {
    closeHeldCredit,

    /**
     * Sets money aside only if the account may spend it under `from` (as a payout from it would: the ledger or the
     * available balance, less what is reserved already), judged under the account's lock; the reservation's id, or
     * undefined when the account's money does not cover it (nothing is written then).
     */
    async reserveSpendable(reservation: NewReservation, from: FundsSource): Promise<string | undefined> {
      await lock([reservation.accountId]);
      const result = await trx.raw(
        `SELECT ledger_spendable(ledger_balance, held_balance, pending_credits, CAST(? AS boolean)) AS spendable FROM virtual_accounts WHERE id = ?`,
        [from === 'available', reservation.accountId],
      );
      const row = result.rows[0] as { spendable: string } | undefined;
      if (!row || koboFromDb(row.spendable) < reservation.amount) return undefined;
      return reserve(reservation);
    },

    /**
     * Releases what is still reserved of a credit being taken back in a posting that moves no reserved money itself
     * (a compensation to several accounts), with the account's held balance and the customer's unheld balance.
     */
    async closeHeldCreditOf(accountId: string, entryId: string): Promise<void> {
      const released = await closeHeldCredit(accountId, entryId);
      await moveReserved(trx, [{ accountId, kobo: -released }]);
    },

    reserve,

    /** Releases (parts of) reservations of the account, each for a reason its kind declares; locks the account first. */
    async release(accountId: string, releases: Release[]): Promise<void> {
      for (const release of releases)
        if (!releasableFor(release.kind, release.reason))
          throw new Error(`a ${release.kind} reservation is not released for ${release.reason}: its kind does not declare it`);
      await lock([accountId]);
      for (const release of releases)
        await change(
          accountId,
          {
            reservationId: release.reservationId,
            amount: release.amount,
            outcome: 'released',
            kind: release.kind,
            reason: release.reason,
            entryId: null,
          },
          release,
        );
      await moveReserved(trx, [{ accountId, kobo: -releases.reduce((sum, release) => sum + release.amount, 0n) }]);
    },

    /**
     * Posts (part of) a reservation by the entry that takes the money for what it was kept (written next, in this
     * transaction); locks the account first.
     */
    async post(accountId: string, posting: Posting): Promise<void> {
      await lock([accountId]);
      await change(
        accountId,
        {
          reservationId: posting.reservationId,
          amount: posting.amount,
          outcome: 'posted',
          kind: null,
          reason: null,
          entryId: posting.entryId,
        },
        posting,
      );
      await moveReserved(trx, [{ accountId, kobo: -posting.amount }]);
    },

    /**
     * The reservation of a kind kept for an owner (one per owner and kind), read under its account's lock (taken
     * here, the customer's first): what it still holds stays so until the caller's transaction ends. Undefined when
     * there is none.
     */
    async ofOwner(kind: ReservationKind, ownerId: string): Promise<OwnedReservation | undefined> {
      const owned = () => trx('ledger_reservations').where({ kind, owner_id: ownerId });
      const found: { account_id: string } | undefined = await owned().first('account_id');
      if (!found) return undefined;
      await lock([found.account_id]);
      const row: { id: string; tenant_id: string; account_id: string; amount: string; open_amount: string } = await owned().first(
        'id',
        'tenant_id',
        'account_id',
        'amount',
        'open_amount',
      );
      return {
        reservationId: row.id,
        tenantId: row.tenant_id,
        accountId: row.account_id,
        amount: koboFromDb(row.amount),
        open: koboFromDb(row.open_amount),
      };
    },

    /**
     * The account's open reservations of a kind, oldest first, read under its account's lock (taken here, the
     * customer's first): what they still hold stays so until the caller's transaction ends.
     */
    async openOfAccount(accountId: string, kind: ReservationKind): Promise<Array<{ reservationId: string; open: Kobo }>> {
      await lock([accountId]);
      const rows: Array<{ id: string; open_amount: string }> = await trx('ledger_reservations')
        .where({ account_id: accountId, kind })
        .where('open_amount', '>', 0)
        .orderBy('id')
        .select('id', 'open_amount');
      return rows.map((row) => ({ reservationId: row.id, open: koboFromDb(row.open_amount) }));
    },

    /**
     * Sets money aside for several reservations at once, each account judged as reserveSpendable judges one: all of
     * them only if every account may spend the sum of its reservations under `from`, judged under the locks of every
     * account (taken together first). Undefined when all were made; else the first account (in the order given) whose
     * money does not cover its reservations, and nothing is written.
     */
    async reserveAllSpendable(reservations: NewReservation[], from: FundsSource): Promise<{ shortAccountId: string } | undefined> {
      const wanted = new Map<string, Kobo>();
      for (const reservation of reservations)
        wanted.set(reservation.accountId, (wanted.get(reservation.accountId) ?? 0n) + reservation.amount);
      const accountIds = [...wanted.keys()];
      await lock(accountIds);
      const result = await trx.raw(
        `SELECT id, tenant_id, ledger_spendable(ledger_balance, held_balance, pending_credits, CAST(? AS boolean)) AS spendable
           FROM virtual_accounts WHERE id = ANY(CAST(? AS uuid[]))`,
        [from === 'available', accountIds],
      );
      const accounts = new Map((result.rows as Array<{ id: string; tenant_id: string; spendable: string }>).map((row) => [row.id, row]));
      for (const [accountId, amount] of wanted) {
        const account = accounts.get(accountId);
        if (!account || koboFromDb(account.spendable) < amount) return { shortAccountId: accountId };
      }
      const rows = reservations.map((reservation) => ({
        id: uuidv7(),
        tenant_id: accounts.get(reservation.accountId)!.tenant_id,
        account_id: reservation.accountId,
        kind: reservation.kind,
        reason: reservation.reason,
        owner_id: reservation.ownerId,
        amount: reservation.amount.toString(),
        tier: reservation.tier ?? null,
        limit_amount: reservation.limitAmount?.toString() ?? null,
        expires_at: reservation.expiresAt ?? null,
      }));
      for (let start = 0; start < rows.length; start += RESERVE_CHUNK)
        await trx('ledger_reservations').insert(rows.slice(start, start + RESERVE_CHUNK));
      await moveReserved(
        trx,
        [...wanted].map(([accountId, kobo]) => ({ accountId, kobo })),
      );
      return undefined;
    },

    /**
     * The open reservations of a kind kept for these owners, read under their accounts' locks (taken here, together):
     * what they still hold stays so until the caller's transaction ends.
     */
    async openOfOwners(kind: ReservationKind, ownerIds: string[]): Promise<Array<OwnedReservation & { ownerId: string }>> {
      if (ownerIds.length === 0) return [];
      const owned = () => trx('ledger_reservations').where({ kind }).whereIn('owner_id', ownerIds).where('open_amount', '>', 0);
      await lock(await owned().distinct().pluck('account_id'));
      const rows: Array<{ id: string; tenant_id: string; account_id: string; owner_id: string; amount: string; open_amount: string }> =
        await owned().orderBy('id').select('id', 'tenant_id', 'account_id', 'owner_id', 'amount', 'open_amount');
      return rows.map((row) => ({
        reservationId: row.id,
        tenantId: row.tenant_id,
        accountId: row.account_id,
        ownerId: row.owner_id,
        amount: koboFromDb(row.amount),
        open: koboFromDb(row.open_amount),
      }));
    },

    /**
     * Takes away the expiry of these open reservations (read by openOfOwners, under their accounts' locks): they stay
     * until posted or released. The decision that keeps them is the caller's.
     */
    async keepWithoutExpiry(reservationIds: string[]): Promise<void> {
      if (reservationIds.length === 0) return;
      await trx('ledger_reservations').whereIn('id', reservationIds).where('open_amount', '>', 0).update({ expires_at: null });
    },

    /**
     * The reservation of a queued kind (see queued: the held-money queue's) holding a credit of the account, its kind,
     * what it still holds and the credit's transaction group; undefined when no such reservation holds the credit.
     */
    async queuedCredit(
      accountId: string,
      entryId: string,
    ): Promise<{ reservationId: string; kind: QueuedKind; open: Kobo; posted: Kobo; transactionGroupId: string } | undefined> {
      const row: { id: string; kind: QueuedKind; open_amount: string; posted: string; transaction_group_id: string } | undefined =
        await trx('ledger_reservations as r')
          .join('ledger_entries as e', 'e.id', 'r.owner_id')
          .where({ 'r.account_id': accountId, 'r.owner_id': entryId })
          .whereIn('r.kind', QUEUED_KINDS)
          .first('r.id', 'r.kind', 'r.open_amount', 'r.posted', 'e.transaction_group_id');
      return row
        ? {
            reservationId: row.id,
            kind: row.kind,
            open: koboFromDb(row.open_amount),
            posted: koboFromDb(row.posted),
            transactionGroupId: row.transaction_group_id,
          }
        : undefined;
    },

    /**
     * A customer's open KYC-limit reservations across its accounts (not the payments a dynamic account holds to
     * return, which no limit explains), oldest credit first, with each credit's amount, the customer's unheld
     * balance and the limits that apply now (see customerLimitsSql; needs kycLimitBindings), and each held credit's
     * reservation. Call with the customer locked.
     */
    async openKycHoldsOfCustomer(
      customerId: string,
      bindings: Record<string, unknown>,
    ): Promise<{ customer: OpenHolds; reservationOf: Map<string, string> }> {
      const result = await trx.raw(
        `SELECT c.unheld_balance, l.single_credit, l.balance AS balance_limit,
                coalesce((SELECT jsonb_agg(jsonb_build_object('id', r.id, 'entry_id', r.owner_id, 'account_id', r.account_id, 'open', r.open_amount, 'credit', e.amount)
                                           ORDER BY e.created_at, e.id)
                            FROM virtual_accounts a
                            JOIN ledger_reservations r ON r.account_id = a.id
                            JOIN ledger_entries e ON e.id = r.owner_id
                           WHERE a.customer_id = c.id AND r.open_amount > 0 AND r.kind = 'kyc_limit'), '[]'::jsonb) AS holds
           FROM customers c JOIN (${customerLimitsSql('(SELECT id, tenant_id, kyc_tier FROM customers WHERE id = :customer_id)')}) l ON l.customer_id = c.id
          WHERE c.id = :customer_id`,
        { ...bindings, customer_id: customerId },
      );
      const row = result.rows[0] as {
        unheld_balance: string;
        single_credit: string | null;
        balance_limit: string | null;
        holds: Array<{ id: string; entry_id: string; account_id: string; open: string | number; credit: string | number }>;
      };
      const limit = (value: string | null) => (value === null ? null : koboFromDb(value));
      return {
        customer: {
          unheldBalance: koboFromDb(row.unheld_balance),
          singleCredit: limit(row.single_credit),
          balanceLimit: limit(row.balance_limit),
          holds: row.holds.map((hold) => ({
            entryId: hold.entry_id,
            accountId: hold.account_id,
            open: koboFromDb(hold.open),
            credit: koboFromDb(hold.credit),
          })),
        },
        reservationOf: new Map(row.holds.map((hold) => [hold.entry_id, hold.id])),
      };
    },

    /**
     * A return to its payer whose settlement debit was reversed (the payout failed, or the provider refunded it): the
     * money is back in the account and reserved again, on the reversing credit, of the posted reservation's kind,
     * reason, tier, limit and note (it is over the limit still). The kobo reserved.
     */
    async reserveReturnedAgain(accountId: string, debitEntryId: string, reversalEntryId: string): Promise<Kobo> {
      const posted:
        | { kind: ReservationKind; reason: string; tier: number | null; limit_amount: string | null; note: string | null; amount: string }
        | undefined = await trx('ledger_reservation_changes as c')
        .join('ledger_reservations as r', 'r.id', 'c.reservation_id')
        .where({ 'c.entry_id': debitEntryId, 'c.account_id': accountId, 'c.outcome': 'posted' })
        .whereIn('r.kind', HELD_CREDIT_KINDS)
        .first('r.kind', 'r.reason', 'r.tier', 'r.limit_amount', 'r.note', 'c.amount');
      if (!posted) return 0n;
      const amount = koboFromDb(posted.amount);
      await reserve({
        accountId,
        kind: posted.kind,
        reason: posted.reason as ReservationReason,
        ownerId: reversalEntryId,
        amount,
        tier: posted.tier,
        limitAmount: posted.limit_amount === null ? null : koboFromDb(posted.limit_amount),
        note: posted.note,
      });
      return amount;
    },
  };
}
