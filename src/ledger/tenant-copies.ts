import type { DbOrTrx } from '../db';

/**
 * What copying a tenant to another cluster needs from the ledger. The ledger's postings are written a whole
 * transaction per statement: its balance triggers check each transaction as it is written, and see its customer
 * entries and its system posting rows together only when one statement writes both. A copy writes these tables
 * that way too, a batch of whole transactions per statement (each table's rows name their `transaction_id`).
 */
export const LEDGER_TRANSACTION_TABLES: readonly string[] = ['ledger_system_posting_rows', 'ledger_entries'];

/**
 * Each of the tenant's accounts' money as the ledger keeps it (balance, credits and debits, provisional credits,
 * held, the provisional debits of payouts in flight, the open reservations) and each customer's (unheld, payouts
 * of the day), as a JSON text by account ref or customer id: two copies of a tenant are compared text to text.
 */
export async function tenantMoneyByHolder(db: DbOrTrx, tenantId: string): Promise<Map<string, string>> {
  const rows: Array<{ holder: string; money: string }> = (
    await db.raw(
      `SELECT 'account ' || a.account_ref AS holder,
              json_build_object('balance', a.ledger_balance, 'credits', a.total_credits, 'debits', a.total_debits,
                                'provisional_credits', a.pending_credits, 'held', a.held_balance, 'last_seq', a.last_seq,
                                'provisional_debits', (SELECT coalesce(sum(e.amount), 0) FROM ledger_entries e
                                                        WHERE e.account_id = a.id AND e.direction = 'debit' AND e.status = 'provisional'),
                                'reserved', (SELECT coalesce(sum(r.open_amount), 0) FROM ledger_reservations r WHERE r.account_id = a.id))::text AS money
         FROM virtual_accounts a WHERE a.tenant_id = ?
       UNION ALL
       SELECT 'customer ' || c.id,
              json_build_object('unheld', c.unheld_balance, 'debits_day', c.debits_day, 'debits_day_total', c.debits_day_total)::text
         FROM customers c WHERE c.tenant_id = ?`,
      [tenantId, tenantId],
    )
  ).rows;
  return new Map(rows.map((row) => [row.holder, row.money]));
}
