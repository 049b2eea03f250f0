import type { Trx } from '../db';
import { uuidv7 } from '../ids';
import { customerLimitsSql } from '../kyc-limits/customer-limits';
import { koboFromDb, type Kobo } from '../money';
import type { OpenHolds } from '../policies/kyc-limits/credit-limits';

export type HoldReleaseReason = 'tier_raised' | 'operator' | 'credit_reversed' | 'returned';

/** Part (or all) of one credit's hold to release, and why. */
export interface HoldRelease {
  entryId: string;
  amount: Kobo;
  reason: HoldReleaseReason;
  userId: string | null;
  note: string | null;
}

/**
 * The holds' rows, written only by the posting engine, always with the customer's row and then the account's
 * locked first (the account's held balance and the customer's unheld balance move in the same transaction).
 */
export function createHoldsRepo(trx: Trx) {
  /** Moves an account's held balance by `kobo`, and its customer's unheld balance the other way. */
  async function moveHeld(accountId: string, kobo: bigint): Promise<void> {
    await trx.raw(
      `WITH account AS (
         UPDATE virtual_accounts SET held_balance = held_balance + CAST(:kobo AS bigint), updated_at = now() WHERE id = :account_id RETURNING customer_id
       )
       UPDATE customers SET unheld_balance = unheld_balance - CAST(:kobo AS bigint) WHERE id = (SELECT customer_id FROM account)`,
      { kobo: kobo.toString(), account_id: accountId },
    );
  }

  /** Releases what is still held of a credit being reversed or taken back; the amount released (0 when none). */
  async function closeHold(entryId: string): Promise<Kobo> {
    const result = await trx.raw(
      `WITH open AS (
         SELECT entry_id, tenant_id, account_id, amount - released AS amount FROM ledger_holds WHERE entry_id = ? AND released < amount FOR UPDATE
       ), closed AS (
         UPDATE ledger_holds h SET released = h.amount FROM open o WHERE h.entry_id = o.entry_id RETURNING h.entry_id
       ), recorded AS (
         INSERT INTO ledger_hold_releases (id, entry_id, tenant_id, account_id, amount, reason)
         SELECT ?, entry_id, tenant_id, account_id, amount, 'credit_reversed' FROM open
       )
       SELECT amount FROM open`,
      [entryId, uuidv7()],
    );
    const row = result.rows[0] as { amount: string } | undefined;
    return row ? koboFromDb(row.amount) : 0n;
  }

  return {
    closeHold,

    /**
     * Releases what is still held of a credit being taken back in a posting that moves no held money itself (a
     * compensation to several accounts), with the account's held balance and the customer's unheld balance.
     * Call with the customer and the account locked.
     */
    async closeHoldOf(accountId: string, entryId: string): Promise<void> {
      const released = await closeHold(entryId);
      if (released > 0n) await moveHeld(accountId, -released);
    },

    /**
     * A customer's open holds over its limits across its accounts (not the payments a dynamic account holds to
     * return, which no limit explains), oldest credit first, with each credit's amount, the
     * customer's unheld balance and the limits that apply now (see customerLimitsSql; needs kycLimitBindings).
     * Call with the customer locked.
     */
    async openHoldsOfCustomer(customerId: string, bindings: Record<string, unknown>): Promise<OpenHolds> {
      const result = await trx.raw(
        `SELECT c.unheld_balance, l.single_credit, l.balance AS balance_limit,
                coalesce((SELECT jsonb_agg(jsonb_build_object('entry_id', h.entry_id, 'account_id', h.account_id, 'open', h.amount - h.released, 'credit', e.amount)
                                           ORDER BY e.created_at, e.id)
                            FROM virtual_accounts a
                            JOIN ledger_holds h ON h.account_id = a.id
                            JOIN ledger_entries e ON e.id = h.entry_id
                           WHERE a.customer_id = c.id AND h.released < h.amount AND h.limit_kind <> 'amount_mismatch'), '[]'::jsonb) AS holds
           FROM customers c JOIN (${customerLimitsSql('(SELECT id, tenant_id, kyc_tier FROM customers WHERE id = :customer_id)')}) l ON l.customer_id = c.id
          WHERE c.id = :customer_id`,
        { ...bindings, customer_id: customerId },
      );
      const row = result.rows[0] as {
        unheld_balance: string;
        single_credit: string | null;
        balance_limit: string | null;
        holds: Array<{ entry_id: string; account_id: string; open: string | number; credit: string | number }>;
      };
      const limit = (value: string | null) => (value === null ? null : koboFromDb(value));
      return {
        unheldBalance: koboFromDb(row.unheld_balance),
        singleCredit: limit(row.single_credit),
        balanceLimit: limit(row.balance_limit),
        holds: row.holds.map((hold) => ({
          entryId: hold.entry_id,
          accountId: hold.account_id,
          open: koboFromDb(hold.open),
          credit: koboFromDb(hold.credit),
        })),
      };
    },

    /** What one credit's hold still holds (0 when none); call with the account locked. */
    async openAmount(accountId: string, entryId: string): Promise<Kobo> {
      const row: { open: string } | undefined = await trx('ledger_holds')
        .where({ account_id: accountId, entry_id: entryId })
        .first(trx.raw('amount - released AS open'));
      return row ? koboFromDb(row.open) : 0n;
    },

    /** Whether the held money of this credit was paid back to its payer. */
    async wasReturned(entryId: string): Promise<boolean> {
      return (await trx('ledger_hold_returns').where({ entry_id: entryId }).first('entry_id')) !== undefined;
    },

    /** Links a credit's returned hold to the settlement debit paying it back; a second return of one hold is refused by its key. */
    async recordReturn(entryId: string, debitEntryId: string, amount: Kobo, userId: string | null): Promise<void> {
      await trx.raw(
        `INSERT INTO ledger_hold_returns (entry_id, tenant_id, account_id, debit_entry_id, amount, user_id)
         SELECT entry_id, tenant_id, account_id, ?, ?, ? FROM ledger_holds WHERE entry_id = ?`,
        [debitEntryId, amount.toString(), userId, entryId],
      );
    },

    /**
     * A return whose settlement debit was reversed (the payout failed, or the provider refunded it): the
     * money is back in the account and held again, as a hold on the reversing credit with the returned
     * hold's tier and limit (it is over the limit still). Call with the customer and the account locked; the kobo held.
     */
    async holdReturnedAgain(accountId: string, debitEntryId: string, reversalEntryId: string): Promise<Kobo> {
      const result = await trx.raw(
        `INSERT INTO ledger_holds (entry_id, tenant_id, account_id, amount, tier, limit_kind, limit_amount)
         SELECT ?, r.tenant_id, r.account_id, r.amount, h.tier, h.limit_kind, h.limit_amount
           FROM ledger_hold_returns r JOIN ledger_holds h ON h.entry_id = r.entry_id
          WHERE r.debit_entry_id = ? AND r.account_id = ?
         RETURNING amount`,
        [reversalEntryId, debitEntryId, accountId],
      );
      const row = result.rows[0] as { amount: string } | undefined;
      if (!row) return 0n;
      const held = koboFromDb(row.amount);
      await moveHeld(accountId, held);
      return held;
    },

    async release(accountId: string, releases: HoldRelease[]): Promise<void> {
      if (releases.length === 0) return;
      const total = releases.reduce((sum, release) => sum + release.amount, 0n);
      for (const release of releases) {
        const updated = await trx('ledger_holds')
          .where({ entry_id: release.entryId, account_id: accountId })
          .whereRaw('amount - released >= ?', [release.amount.toString()])
          .update({ released: trx.raw('released + ?', [release.amount.toString()]) });
        if (updated !== 1) throw new Error(`hold ${release.entryId} does not have ${release.amount} kobo left to release`);
        await trx.raw(
          `INSERT INTO ledger_hold_releases (id, entry_id, tenant_id, account_id, amount, reason, user_id, note)
           SELECT ?, entry_id, tenant_id, account_id, ?, ?, ?, ? FROM ledger_holds WHERE entry_id = ?`,
          [uuidv7(), release.amount.toString(), release.reason, release.userId, release.note, release.entryId],
        );
      }
      await moveHeld(accountId, -total);
    },
  };
}
