import type { Trx } from '../db';
import { uuidv7 } from '../ids';
import { accountLimitsSql } from '../kyc-limits/account-limits';
import { koboFromDb, type Kobo } from '../money';

export interface OpenHolds {
  unheldBalance: Kobo;
  singleCredit: Kobo | null;
  balanceLimit: Kobo | null;
  holds: Array<{ entryId: string; open: Kobo; credit: Kobo }>;
}

/**
 * What of each open hold today's limits no longer justify, oldest credit first: the part of a credit above
 * the single-credit limit stays held, and releases stop once the unheld balance reaches the balance limit.
 */
export function releasableUnderLimits(account: OpenHolds): Array<{ entryId: string; amount: Kobo }> {
  let unheld = account.unheldBalance;
  const releases: Array<{ entryId: string; amount: Kobo }> = [];
  for (const hold of account.holds) {
    const overSingle = account.singleCredit === null || hold.credit <= account.singleCredit ? 0n : hold.credit - account.singleCredit;
    let amount = hold.open > overSingle ? hold.open - overSingle : 0n;
    if (account.balanceLimit !== null) {
      const room = account.balanceLimit > unheld ? account.balanceLimit - unheld : 0n;
      if (amount > room) amount = room;
    }
    if (amount > 0n) {
      releases.push({ entryId: hold.entryId, amount });
      unheld += amount;
    }
  }
  return releases;
}

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
 * The holds' rows, written only by the posting engine, always with the account's row locked first (the
 * account's held balance moves in the same transaction).
 */
export function createHoldsRepo(trx: Trx) {
  return {
    /** Releases what is still held of a credit being reversed or taken back; the amount released (0 when none). */
    async closeHold(entryId: string): Promise<Kobo> {
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
    },

    /**
     * An account's open holds, oldest credit first, with the credit's amount, the account's balances and
     * the limits that apply now (see accountLimitsSql; needs kycLimitBindings). Call with the account locked.
     */
    async openHolds(accountId: string, bindings: Record<string, unknown>): Promise<OpenHolds> {
      const result = await trx.raw(
        `SELECT a.ledger_balance, a.held_balance, l.single_credit, l.balance AS balance_limit,
                coalesce((SELECT jsonb_agg(jsonb_build_object('entry_id', h.entry_id, 'open', h.amount - h.released, 'credit', e.amount) ORDER BY e.seq)
                            FROM ledger_holds h JOIN ledger_entries e ON e.id = h.entry_id
                           WHERE h.account_id = a.id AND h.released < h.amount), '[]'::jsonb) AS holds
           FROM virtual_accounts a JOIN (${accountLimitsSql('CAST(:account_id AS uuid)')}) l ON l.account_id = a.id
          WHERE a.id = :account_id`,
        { ...bindings, account_id: accountId },
      );
      const row = result.rows[0] as {
        ledger_balance: string;
        held_balance: string;
        single_credit: string | null;
        balance_limit: string | null;
        holds: Array<{ entry_id: string; open: string | number; credit: string | number }>;
      };
      const limit = (value: string | null) => (value === null ? null : koboFromDb(value));
      return {
        unheldBalance: koboFromDb(row.ledger_balance) - koboFromDb(row.held_balance),
        singleCredit: limit(row.single_credit),
        balanceLimit: limit(row.balance_limit),
        holds: row.holds.map((hold) => ({ entryId: hold.entry_id, open: koboFromDb(hold.open), credit: koboFromDb(hold.credit) })),
      };
    },

    /** What one credit's hold still holds (0 when none); call with the account locked. */
    async openAmount(accountId: string, entryId: string): Promise<Kobo> {
      const row: { open: string } | undefined = await trx('ledger_holds').where({ account_id: accountId, entry_id: entryId }).first(trx.raw('amount - released AS open'));
      return row ? koboFromDb(row.open) : 0n;
    },

    /** Whether the held money of this credit was paid back to its payer. */
    async wasReturned(entryId: string): Promise<boolean> {
      return (await trx('ledger_hold_returns').where({ entry_id: entryId }).first('entry_id')) !== undefined;
    },

    /** Links a credit's returned hold to the settlement debit paying it back; a second return of one hold is refused by its key. */
    async recordReturn(entryId: string, debitEntryId: string, amount: Kobo, userId: string): Promise<void> {
      await trx.raw(
        `INSERT INTO ledger_hold_returns (entry_id, tenant_id, account_id, debit_entry_id, amount, user_id)
         SELECT entry_id, tenant_id, account_id, ?, ?, ? FROM ledger_holds WHERE entry_id = ?`,
        [debitEntryId, amount.toString(), userId, entryId],
      );
    },

    /**
     * A return whose settlement debit was reversed (the payout failed, or the provider refunded it): the
     * money is back in the account and held again, as a hold on the reversing credit with the returned
     * hold's tier and limit (it is over the limit still). Call with the account locked; the kobo held.
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
      await trx('virtual_accounts')
        .where({ id: accountId })
        .update({ held_balance: trx.raw('held_balance + ?', [row.amount]), updated_at: trx.fn.now() });
      return koboFromDb(row.amount);
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
      await trx('virtual_accounts')
        .where({ id: accountId })
        .update({ held_balance: trx.raw('held_balance - ?', [total.toString()]), updated_at: trx.fn.now() });
    },
  };
}
