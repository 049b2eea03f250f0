import type { Knex } from 'knex';

const LAGOS_TODAY = "CAST(now() AT TIME ZONE 'Africa/Lagos' AS date)";

/**
 * KYC limits are judged on the customer, all its accounts together. The customer's row carries what they are
 * judged against, moved only by the ledger under the customer's row lock: the unheld balance of its accounts
 * (ledger balances less held money) and its payouts of the current Africa/Lagos day, which replace the
 * accounts' own.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE customers
      ADD COLUMN unheld_balance bigint NOT NULL DEFAULT 0,
      ADD COLUMN debits_day date,
      ADD COLUMN debits_day_total bigint NOT NULL DEFAULT 0 CHECK (debits_day_total >= 0);

    UPDATE customers c
       SET unheld_balance = s.unheld,
           debits_day = CASE WHEN s.today IS NOT NULL THEN ${LAGOS_TODAY} END,
           debits_day_total = coalesce(s.today, 0)
      FROM (SELECT customer_id, sum(ledger_balance - held_balance) AS unheld,
                   sum(debits_day_total) FILTER (WHERE debits_day = ${LAGOS_TODAY}) AS today
              FROM virtual_accounts
             GROUP BY customer_id) s
     WHERE s.customer_id = c.id;

    ALTER TABLE virtual_accounts DROP COLUMN debits_day, DROP COLUMN debits_day_total;
  `);
}

/** Back to the accounts' own days: today's payouts of each account, from its settlement debits. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE virtual_accounts
      ADD COLUMN debits_day date,
      ADD COLUMN debits_day_total bigint NOT NULL DEFAULT 0 CHECK (debits_day_total >= 0);
    UPDATE virtual_accounts a
       SET debits_day = ${LAGOS_TODAY}, debits_day_total = s.total
      FROM (SELECT e.account_id, sum(e.amount) AS total
              FROM ledger_entries e
             WHERE e.kind = 'settlement' AND e.direction = 'debit'
               AND CAST(e.created_at AT TIME ZONE 'Africa/Lagos' AS date) = ${LAGOS_TODAY}
               AND NOT EXISTS (SELECT 1 FROM ledger_hold_returns r WHERE r.debit_entry_id = e.id)
             GROUP BY e.account_id) s
     WHERE s.account_id = a.id;

    ALTER TABLE customers DROP COLUMN unheld_balance, DROP COLUMN debits_day, DROP COLUMN debits_day_total;
  `);
}
