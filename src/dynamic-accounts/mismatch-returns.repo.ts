import { randomUUID } from 'node:crypto';
import type { DbOrTrx } from '../db';
import { HELD_MISMATCHES_TO_RETURN_SQL } from '../ledger/ledger-reads';
import type { Variance } from '../policies/dynamic-account-amount/amount-policy';

/** A return that got no answer (a crash, a provider outage) is tried again after this long. */
const RETRY_AFTER = "interval '1 minute'";

/** A payment a dynamic account holds to return to its payer, confirmed, and so ready to be returned. */
export interface PaymentToReturn {
  entryId: string;
  tenantId: string;
  accountId: string;
  transactionGroupId: string;
  variance: Variance;
}

/**
 * The service's returns of dynamic accounts' mismatched payments (dynamic_account_returns): one row per held
 * payment, claimed while a return is under way, then returned (with its settlement) or refused (with why). Each
 * claim has a token of its own: a worker whose claim another re-claimed after RETRY_AFTER records nothing.
 */
export function createMismatchReturnsRepo(db: DbOrTrx) {
  return {
    /** Up to `limit` payments held to return of which no return is under way, returned or refused; oldest first. */
    async due(limit: number): Promise<PaymentToReturn[]> {
      const { rows } = (await db.raw(
        `SELECT c.entry_id, c.tenant_id, c.account_id, c.transaction_group_id, c.variance
           FROM ${HELD_MISMATCHES_TO_RETURN_SQL} c
          WHERE NOT EXISTS (SELECT 1 FROM dynamic_account_returns r
                             WHERE r.entry_id = c.entry_id AND (r.status <> 'returning' OR r.attempted_at > now() - ${RETRY_AFTER}))
            -- An account whose tenant moved to another cluster returns its payments there; here the fence refuses them.
            AND NOT EXISTS (SELECT 1 FROM virtual_accounts va WHERE va.id = c.account_id AND va.moved_out_at IS NOT NULL)
          ORDER BY c.created_at
          LIMIT ?`,
        [limit],
      )) as { rows: Array<{ entry_id: string; tenant_id: string; account_id: string; transaction_group_id: string; variance: Variance }> };
      return rows.map((row) => ({
        entryId: row.entry_id,
        tenantId: row.tenant_id,
        accountId: row.account_id,
        transactionGroupId: row.transaction_group_id,
        variance: row.variance,
      }));
    },

    /** Claims the payment's return for this worker: the claim's token, or undefined when another has it (or it ended). */
    async claim(payment: { entryId: string; tenantId: string; accountId: string }): Promise<string | undefined> {
      const token = randomUUID();
      const result = await db.raw(
        `INSERT INTO dynamic_account_returns (entry_id, tenant_id, account_id, status, claim_token) VALUES (?, ?, ?, 'returning', ?)
         ON CONFLICT (entry_id) DO UPDATE SET attempted_at = now(), claim_token = EXCLUDED.claim_token
          WHERE dynamic_account_returns.status = 'returning' AND dynamic_account_returns.attempted_at <= now() - ${RETRY_AFTER}
         RETURNING entry_id`,
        [payment.entryId, payment.tenantId, payment.accountId, token],
      );
      return result.rows.length === 1 ? token : undefined;
    },

    /** The return under the claim `token` paid: false (nothing written) when the claim is no longer this one. */
    async returned(entryId: string, token: string, merchantTxRef: string): Promise<boolean> {
      const updated = await db('dynamic_account_returns')
        .where({ entry_id: entryId, status: 'returning', claim_token: token })
        .update({ status: 'returned', merchant_tx_ref: merchantTxRef });
      return updated === 1;
    },

    /** The return under the claim `token` refused, and why: false (nothing written) when the claim is no longer this one. */
    async refused(entryId: string, token: string, reason: string): Promise<boolean> {
      const updated = await db('dynamic_account_returns')
        .where({ entry_id: entryId, status: 'returning', claim_token: token })
        .update({ status: 'refused', reason });
      return updated === 1;
    },

    /** Lets go of the claim `token` of a payment that needs no return any more (an operator returned or released it). */
    async dropped(entryId: string, token: string): Promise<void> {
      await db('dynamic_account_returns').where({ entry_id: entryId, status: 'returning', claim_token: token }).delete();
    },
  };
}
