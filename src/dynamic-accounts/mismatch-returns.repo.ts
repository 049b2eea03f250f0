import type { DbOrTrx } from '../db';

/** A return that got no answer (a crash, a provider outage) is tried again after this long. */
const RETRY_AFTER = "interval '1 minute'";

/**
 * The service's returns of dynamic accounts' mismatched payments (dynamic_account_returns): one row per held
 * payment, claimed while a return is under way, then returned (with its settlement) or refused (with why).
 */
export function createMismatchReturnsRepo(db: DbOrTrx) {
  return {
    /** A condition on a hold `h` (entry_id): no return of it is under way, returned or refused. */
    unclaimedSql: `NOT EXISTS (SELECT 1 FROM dynamic_account_returns r
                                WHERE r.entry_id = h.entry_id AND (r.status <> 'returning' OR r.attempted_at > now() - ${RETRY_AFTER}))`,

    /** Claims the payment's return for this worker; false when another has it (or it ended). */
    async claim(payment: { entryId: string; tenantId: string; accountId: string }): Promise<boolean> {
      const result = await db.raw(
        `INSERT INTO dynamic_account_returns (entry_id, tenant_id, account_id, status) VALUES (?, ?, ?, 'returning')
         ON CONFLICT (entry_id) DO UPDATE SET attempted_at = now()
          WHERE dynamic_account_returns.status = 'returning' AND dynamic_account_returns.attempted_at <= now() - ${RETRY_AFTER}
         RETURNING entry_id`,
        [payment.entryId, payment.tenantId, payment.accountId],
      );
      return result.rows.length === 1;
    },

    async returned(entryId: string, merchantTxRef: string): Promise<void> {
      await db('dynamic_account_returns').where({ entry_id: entryId }).update({ status: 'returned', merchant_tx_ref: merchantTxRef });
    },

    async refused(entryId: string, reason: string): Promise<void> {
      await db('dynamic_account_returns').where({ entry_id: entryId }).update({ status: 'refused', reason });
    },
  };
}
