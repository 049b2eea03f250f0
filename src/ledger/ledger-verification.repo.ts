import type { DbOrTrx } from '../db';
import { LAGOS_TODAY, payoutDaySql } from '../policies/kyc-limits/daily-payout-limit';
import { declaredReasonsSql, declaredReleaseReasonsSql, HELD_CREDIT_KINDS_SQL } from './reservation-kinds';

/**
 * Whether entry `entryId` (an expression) lies in an archived month (see docs/scaling.md#archived-months): a record
 * naming it names an entry archived whole and final, checked before it went, not a missing one.
 */
const ARCHIVED_ENTRY = (entryId: string) =>
  `EXISTS (SELECT 1 FROM history_archived_rows z WHERE z.table_name = 'ledger_entries' AND z.id = ${entryId})`;

/**
 * Each held credit returned to its payer (a reservation of a held credit posted by its settlement debit): entry_id
 * (the credit), tenant_id, account_id, debit_entry_id, amount, user_id.
 */
const HELD_CREDIT_RETURNS = `(SELECT r.owner_id AS entry_id, p.tenant_id, p.account_id, p.entry_id AS debit_entry_id, p.amount, p.user_id
     FROM ledger_reservation_changes p JOIN ledger_reservations r ON r.id = p.reservation_id
    WHERE p.outcome = 'posted' AND r.kind IN ${HELD_CREDIT_KINDS_SQL})`;

/** A SELECT naming the return of a held credit that the settlement debit `debitEntryId` (an expression) paid, if it is one. */
const HELD_CREDIT_RETURN_OF = (debitEntryId: string) =>
  `SELECT 1 FROM ledger_reservation_changes p JOIN ledger_reservations r ON r.id = p.reservation_id
    WHERE p.entry_id = ${debitEntryId} AND p.outcome = 'posted' AND r.kind IN ${HELD_CREDIT_KINDS_SQL}`;

/**
 * Each row of the ledger's history by the tenant, account or entry it names (table_name, row_id, parent: 'tenant',
 * 'account' or 'entry', parent_id). A system-posting row has no id of its own: it is its transaction and account (an
 * entry's counters are its own row's).
 */
const ORPHAN_SOURCES = [
  ...[
    ['ledger_entries', 'id'],
    ['inbound_events', 'id'],
    ['webhook_deliveries', 'id'],
    ['ledger_payment_variances', 'entry_id'],
    ['ledger_reservations', 'id'],
    ['ledger_reservation_changes', 'id'],
  ].flatMap(([table, key]) => [
    `SELECT '${table}' AS table_name, ${key}::text AS row_id, 'tenant' AS parent, tenant_id AS parent_id FROM ${table}`,
    `SELECT '${table}', ${key}::text, 'account', account_id FROM ${table}`,
  ]),
  `SELECT 'tenant_events', id::text, 'tenant', tenant_id FROM tenant_events`,
  `SELECT 'inbound_events', id::text, 'entry', entry_id FROM inbound_events`,
  `SELECT 'ledger_payment_variances', entry_id::text, 'entry', entry_id FROM ledger_payment_variances`,
  `SELECT 'ledger_system_posting_rows', transaction_id || '/' || account, 'tenant', tenant_id FROM ledger_system_posting_rows`,
  // The entries are partitioned by month: the records naming one hold no foreign key to it.
  ...[
    ['ledger_entries', 'id', 'reverses_entry_id'],
    ['settlements', 'id', 'debit_entry_id'],
    ['settlements', 'id', 'reversal_entry_id'],
    ['internal_transfers', 'id', 'debit_entry_id'],
    ['internal_transfers', 'id', 'credit_entry_id'],
    ['split_moves', "payment_entry_id || '/' || position", 'taken_back_entry_id'],
    ['reconciliation_exceptions', 'id', 'entry_id'],
    ['reconciliation_exceptions', 'id', 'repair_entry_id'],
    ['ledger_reservation_changes', 'id', 'entry_id'],
    ['inbound_events', 'id', 'assigned_entry_id'],
    ['ledger_payment_credit_keys', 'provider_txn_ref', 'entry_id'],
    ['ledger_entry_reversal_keys', 'reverses_entry_id', 'entry_id'],
    ['ledger_entry_reversal_keys', 'reverses_entry_id', 'reverses_entry_id'],
  ].map(([table, key, column]) => `SELECT '${table}', (${key})::text, 'entry', ${column} FROM ${table}`),
  // The events, deliveries and provider payloads are partitioned by month too: the rows naming one hold no foreign key.
  `SELECT 'webhook_attempts', delivery_id || '/' || attempt_no, 'tenant', tenant_id FROM webhook_attempts`,
  ...[
    ['webhook_attempts', "delivery_id || '/' || attempt_no", 'delivery', 'delivery_id'],
    ['webhook_deliveries', 'id', 'delivery', 'replay_of'],
    ['webhook_deliveries', 'id', 'inbound event', 'inbound_event_id'],
    ['webhook_deliveries', 'id', 'tenant event', 'tenant_event_id'],
    ['inbound_event_request_keys', 'request_id', 'inbound event', 'event_id'],
    ['inbound_event_digest_keys', 'raw_sha256', 'inbound event', 'event_id'],
  ].map(([table, key, parent, column]) => `SELECT '${table}', (${key})::text, '${parent}', ${column} FROM ${table}`),
].join('\n            UNION ALL ');

/** An account below zero: a spent provisional credit was reversed, or a spent credit compensated. Money owed, not a broken ledger. */
interface LedgerDeficit {
  accountRef: string;
  balance: string;
  since: Date;
}

interface LedgerProblem {
  check: string;
  accountRef: string | null;
  detail: string;
}

/**
 * The transfers each split move names, and what each must be: one row per movement of a part (`movement`), from
 * `from_account_id` to `to_account_id`, of `amount`, a transfer of `source` marked as the split of the move's
 * payment. A part taken back is no transfer but adjustments answering the transfer's entries: see SPLIT_TAKE_BACKS.
 */
const SPLIT_MOVE_TRANSFERS = `
  SELECT m.payment_entry_id, m.position, 'moved' AS movement, m.transfer_id, m.from_account_id, m.to_account_id, m.amount, 'split' AS source
    FROM split_moves m
   WHERE m.transfer_id IS NOT NULL`;

/**
 * Each split move taken back, beside the transfer that moved its part (`t`), the receiver's debit it names (`b`),
 * the compensation of its payment (`c`: the adjustment debit answering the payment credit, at most one by the
 * ledger's unique index on the answered entry) and the splitting account's credit answering the transfer's debit
 * (`k`, at most one likewise).
 */
const SPLIT_TAKE_BACKS = `
  SELECT m.payment_entry_id, m.position, m.tenant_id, m.from_account_id, m.to_account_id, m.amount, m.transfer_id, m.taken_back_entry_id,
         t.credit_entry_id, t.debit_entry_id,
         b.id AS b_id, b.kind AS b_kind, b.direction AS b_direction, b.status AS b_status, b.account_id AS b_account_id,
         b.amount AS b_amount, b.tenant_id AS b_tenant_id, b.reverses_entry_id AS b_answers, b.transaction_id AS b_transaction_id,
         c.id AS c_id, c.transaction_id AS c_transaction_id,
         k.id AS k_id, k.status AS k_status, k.account_id AS k_account_id, k.amount AS k_amount, k.transaction_id AS k_transaction_id
    FROM split_moves m
    LEFT JOIN internal_transfers t ON t.id = m.transfer_id
    LEFT JOIN ledger_entries b ON b.id = m.taken_back_entry_id
    LEFT JOIN ledger_entries c ON c.reverses_entry_id = m.payment_entry_id AND c.kind = 'adjustment' AND c.direction = 'debit'
    LEFT JOIN ledger_entries k ON k.reverses_entry_id = t.debit_entry_id AND k.kind = 'adjustment' AND k.direction = 'credit'
   WHERE m.taken_back_entry_id IS NOT NULL`;

/**
 * What is wrong with a split move's take-back (a row of SPLIT_TAKE_BACKS, alias x), or null: its entry is a
 * confirmed adjustment debit of the part's receiver, of the part's amount and the move's tenant, answering the
 * transfer's credit, in the transaction of the payment's compensation; and that transaction credits the splitting
 * account the part, answering the transfer's debit.
 */
const TAKE_BACK_FAULT = `nullif(concat_ws('; ',
  CASE WHEN x.b_id IS NULL THEN format('its take-back entry %s does not exist', x.taken_back_entry_id)
       ELSE 'its take-back entry ' || x.b_id || ' is ' || nullif(concat_ws(', ',
         CASE WHEN x.b_kind <> 'adjustment' OR x.b_direction <> 'debit' OR x.b_status <> 'confirmed'
              THEN format('a %s %s %s', x.b_status, x.b_kind, x.b_direction) END,
         CASE WHEN x.b_account_id <> x.to_account_id THEN format('on account %s', x.b_account_id) END,
         CASE WHEN x.b_amount <> x.amount THEN format('of %s', x.b_amount) END,
         CASE WHEN x.b_tenant_id <> x.tenant_id THEN format('of tenant %s', x.b_tenant_id) END,
         CASE WHEN x.b_answers IS DISTINCT FROM x.credit_entry_id
              THEN format('answering entry %s, not the transfer''s credit %s', coalesce(x.b_answers::text, 'none'), coalesce(x.credit_entry_id::text, 'none')) END,
         CASE WHEN x.c_id IS NOT NULL AND x.b_transaction_id <> x.c_transaction_id
              THEN format('in transaction %s, not that of the compensation %s (%s)', x.b_transaction_id, x.c_id, x.c_transaction_id) END), '') END,
  CASE WHEN x.c_id IS NULL THEN 'the payment was not compensated' END,
  CASE WHEN x.k_id IS NULL THEN format('no adjustment credit answers the transfer''s debit %s', coalesce(x.debit_entry_id::text, 'none'))
       ELSE 'the splitting account''s credit ' || x.k_id || ' is ' || nullif(concat_ws(', ',
         CASE WHEN x.k_status <> 'confirmed' THEN x.k_status END,
         CASE WHEN x.k_account_id <> x.from_account_id THEN format('on account %s', x.k_account_id) END,
         CASE WHEN x.k_amount <> x.amount THEN format('of %s', x.k_amount) END,
         CASE WHEN x.k_transaction_id IS DISTINCT FROM x.b_transaction_id
              THEN format('in transaction %s, not the take-back''s %s', x.k_transaction_id, coalesce(x.b_transaction_id::text, 'none')) END), '') END), '')`;

/**
 * What is wrong with one entry of a transfer (`entry`, an alias of ledger_entries beside internal_transfers t), or
 * null: it is the transfer's `direction`, of kind transfer, on `accountSql`, of the transfer's amount, tenant and
 * transaction, and names the transfer (its reference is the transfer's id, as the statements show it).
 */
function transferEntryFault(entry: string, direction: 'debit' | 'credit', accountSql: string, entryIdSql: string): string {
  return `CASE WHEN ${entry}.id IS NULL AND ${ARCHIVED_ENTRY(entryIdSql)} THEN NULL
               WHEN ${entry}.id IS NULL THEN 'no ${direction} entry'
               ELSE 'the ${direction} entry ' || ${entry}.id || ' is ' || nullif(concat_ws(', ',
                 CASE WHEN ${entry}.kind <> 'transfer' OR ${entry}.direction <> '${direction}' THEN format('a %s %s', ${entry}.kind, ${entry}.direction) END,
                 CASE WHEN ${entry}.account_id <> ${accountSql} THEN format('on account %s', ${entry}.account_id) END,
                 CASE WHEN ${entry}.amount <> t.amount THEN format('of %s', ${entry}.amount) END,
                 CASE WHEN ${entry}.tenant_id <> t.tenant_id THEN format('of tenant %s', ${entry}.tenant_id) END,
                 CASE WHEN ${entry}.transaction_id <> t.transaction_id THEN format('in transaction %s', ${entry}.transaction_id) END,
                 CASE WHEN ${entry}.provider_txn_ref IS DISTINCT FROM t.id::text THEN format('named %s', ${entry}.provider_txn_ref) END), '') END`;
}

/**
 * Recomputes the ledger from its entries and reports every disagreement with what was stored:
 * account totals, the running columns of each entry, reversals, settlement states, adjustments, held
 * money, the customers' unheld balances and payouts of the day, and the double entry: balanced transactions, transfers of two entries, every tenant's
 * books summing to zero, and payouts in transit matching the open settlements. It also holds the records that
 * name entries to them: each transfer to its two entries, each split move to its transfer (and, taken back, to the
 * adjustments that took it back with its payment's compensation), and each dynamic account's return to its hold's
 * release and its payout.
 * Where months were archived (see docs/scaling.md#archived-months), each account's totals and running columns start
 * from what its archived entries left behind, each tenant's books from its archived system postings, and a record
 * naming an archived row is checked as far as its rows still attached go.
 * Accounts in deficit are listed apart: the database allows them (only through a reversal or an
 * operator's compensating adjustment) and they are counted, not errors.
 */
export function createLedgerVerificationRepo(db: DbOrTrx) {
  async function rows<T>(sql: string): Promise<T[]> {
    return (await db.raw(sql)).rows as T[];
  }

  return {
    async counts(): Promise<{ accounts: number; entries: number }> {
      const [row] = await rows<{ accounts: string; entries: string }>(
        'SELECT (SELECT count(*) FROM virtual_accounts) AS accounts, (SELECT count(*) FROM ledger_entries) AS entries',
      );
      return { accounts: Number(row!.accounts), entries: Number(row!.entries) };
    },

    async deficits(): Promise<LedgerDeficit[]> {
      return rows<LedgerDeficit>(
        'SELECT account_ref AS "accountRef", ledger_balance::text AS balance, deficit_since AS since FROM virtual_accounts WHERE deficit_since IS NOT NULL ORDER BY deficit_since',
      );
    },

    async problems(): Promise<LedgerProblem[]> {
      const totals = await rows<LedgerProblem>(`
        WITH live AS (
          SELECT account_id,
                 coalesce(sum(amount) FILTER (WHERE direction = 'credit'), 0) AS credits,
                 coalesce(sum(amount) FILTER (WHERE direction = 'debit'), 0) AS debits,
                 coalesce(sum(amount) FILTER (WHERE direction = 'credit' AND status = 'provisional'), 0) AS pending,
                 max(seq) AS last_seq
            FROM ledger_entries GROUP BY account_id
        ), sums AS (
          -- An account's archived entries count as the sums they left behind (nothing provisional is archived).
          SELECT coalesce(l.account_id, z.account_id) AS account_id,
                 coalesce(l.credits, 0) + coalesce(z.credits, 0) AS credits,
                 coalesce(l.debits, 0) + coalesce(z.debits, 0) AS debits,
                 coalesce(l.pending, 0) AS pending,
                 coalesce(l.last_seq, z.last_seq, 0) AS last_seq
            FROM live l FULL JOIN ledger_archived_accounts z ON z.account_id = l.account_id
        ), last AS (
          SELECT DISTINCT ON (account_id) account_id, balance_after FROM (
            SELECT account_id, seq, balance_after FROM ledger_entries
            UNION ALL
            SELECT account_id, last_seq, balance_after FROM ledger_archived_accounts
          ) running ORDER BY account_id, seq DESC
        )
        SELECT 'account_totals' AS check, a.account_ref AS "accountRef",
               format('stored balance %s credits %s debits %s pending %s last_seq %s; recomputed balance %s credits %s debits %s pending %s last_seq %s; last balance_after %s',
                      a.ledger_balance, a.total_credits, a.total_debits, a.pending_credits, a.last_seq,
                      coalesce(s.credits, 0) - coalesce(s.debits, 0), coalesce(s.credits, 0), coalesce(s.debits, 0), coalesce(s.pending, 0), coalesce(s.last_seq, 0),
                      coalesce(l.balance_after, 0)) AS detail
          FROM virtual_accounts a
          LEFT JOIN sums s ON s.account_id = a.id
          LEFT JOIN last l ON l.account_id = a.id
         WHERE a.total_credits <> coalesce(s.credits, 0)
            OR a.total_debits <> coalesce(s.debits, 0)
            OR a.ledger_balance <> coalesce(s.credits, 0) - coalesce(s.debits, 0)
            OR a.ledger_balance <> coalesce(l.balance_after, 0)
            OR a.pending_credits <> coalesce(s.pending, 0)
            OR a.last_seq <> coalesce(s.last_seq, 0)`);
      const chain = await rows<LedgerProblem>(`
        SELECT 'entry_running_columns' AS check, a.account_ref AS "accountRef", format('entry %s (seq %s) does not follow the entry before it', e.id, e.seq) AS detail
          FROM (SELECT x.*, coalesce(lag(x.seq) OVER w, z.last_seq, 0) AS prev_seq,
                          coalesce(lag(x.credits_to_date) OVER w, z.credits_to_date, 0) AS prev_credits,
                          coalesce(lag(x.debits_to_date) OVER w, z.debits_to_date, 0) AS prev_debits
                  FROM ledger_entries x LEFT JOIN ledger_archived_accounts z ON z.account_id = x.account_id
                WINDOW w AS (PARTITION BY x.account_id ORDER BY x.seq)) e
          JOIN virtual_accounts a ON a.id = e.account_id
         WHERE e.seq <> e.prev_seq + 1
            OR e.credits_to_date <> e.prev_credits + CASE WHEN e.direction = 'credit' THEN e.amount ELSE 0 END
            OR e.debits_to_date <> e.prev_debits + CASE WHEN e.direction = 'debit' THEN e.amount ELSE 0 END
         LIMIT 100`);
      const reversals = await rows<LedgerProblem>(`
        SELECT 'reversals' AS check, a.account_ref AS "accountRef", format('entry %s is %s but has %s reversal entries', o.id, o.status, count(r.id)) AS detail
          FROM ledger_entries o
          JOIN virtual_accounts a ON a.id = o.account_id
          LEFT JOIN ledger_entries r ON r.reverses_entry_id = o.id AND r.kind = 'reversal' AND r.amount = o.amount AND r.direction <> o.direction AND r.account_id = o.account_id
         WHERE o.kind <> 'reversal'
         GROUP BY o.id, o.status, a.account_ref
        HAVING (o.status = 'reversed') <> (count(r.id) = 1) OR count(r.id) > 1
         LIMIT 100`);
      const settlements = await rows<LedgerProblem>(`
        SELECT 'settlement_states' AS check, a.account_ref AS "accountRef", format('settlement %s is %s but its debit is %s', s.merchant_tx_ref, s.status, e.status) AS detail
          FROM settlements s
          JOIN ledger_entries e ON e.id = s.debit_entry_id
          JOIN virtual_accounts a ON a.id = s.account_id
         WHERE NOT ((s.status IN ('pending', 'processing') AND e.status = 'provisional')
                 OR (s.status = 'success' AND e.status = 'confirmed')
                 OR (s.status IN ('failed', 'refunded') AND e.status = 'reversed'))
            OR e.amount <> s.amount
         LIMIT 100`);
      // A restoring credit answers a reversal; a compensating debit answers a credit; a compensated split credit's part
      // taken back answers its transfer's credit (the receiver's debit) and debit (the splitting account's credit); each
      // for its full amount.
      const adjustments = await rows<LedgerProblem>(`
        SELECT 'adjustments' AS check, a.account_ref AS "accountRef", format('adjustment %s does not answer a matching entry', j.id) AS detail
          FROM ledger_entries j
          JOIN virtual_accounts a ON a.id = j.account_id
          LEFT JOIN ledger_entries t ON t.id = j.reverses_entry_id
         WHERE j.kind = 'adjustment'
           AND ((t.id IS NULL AND NOT ${ARCHIVED_ENTRY('j.reverses_entry_id')}) OR t.account_id <> j.account_id OR t.direction = j.direction OR t.amount <> j.amount
                OR (j.direction = 'credit' AND t.kind NOT IN ('reversal', 'transfer'))
                OR (j.direction = 'debit' AND t.kind NOT IN ('payment', 'adjustment', 'transfer')))
         LIMIT 100`);
      // Reserved money: the account's held balance is what its open reservations hold; each reservation's posted and
      // released parts are what its changes say, within its amount, of a kind and reason declared, and each release
      // is for a reason its kind declares; a held credit's reservation never exceeds its credit (a payment's, its
      // restoration's, a transfer's, or a failed return's, held again on the credit reversing the return's debit),
      // and a reversed or taken-back credit holds nothing. A posted part is the settlement debit of the account that
      // paid it back, of that amount.
      const holds = await rows<LedgerProblem>(`
        SELECT 'holds' AS check, a.account_ref AS "accountRef", format('stored held balance %s; open reservations %s', a.held_balance, coalesce(r.open, 0)) AS detail
          FROM virtual_accounts a
          LEFT JOIN (SELECT account_id, sum(open_amount) AS open FROM ledger_reservations GROUP BY account_id) r ON r.account_id = a.id
         WHERE a.held_balance <> coalesce(r.open, 0)
        UNION ALL
        SELECT 'holds', a.account_ref, format('reservation %s (%s %s of %s): amount %s posted %s released %s, changes posted %s released %s', r.id, r.kind, r.reason, r.owner_id,
                                              r.amount, r.posted, r.released, coalesce(c.posted, 0), coalesce(c.released, 0))
          FROM ledger_reservations r
          JOIN virtual_accounts a ON a.id = r.account_id
          LEFT JOIN (SELECT reservation_id, sum(amount) FILTER (WHERE outcome = 'posted') AS posted, sum(amount) FILTER (WHERE outcome <> 'posted') AS released
                       FROM ledger_reservation_changes GROUP BY reservation_id) c ON c.reservation_id = r.id
         WHERE r.posted <> coalesce(c.posted, 0) OR r.released <> coalesce(c.released, 0) OR r.posted + r.released > r.amount
            OR (r.kind, r.reason) NOT IN (VALUES ${declaredReasonsSql()})
        UNION ALL
        SELECT 'holds', a.account_ref, format('release %s of reservation %s (%s): reason %s is not one its kind declares', p.id, r.id, r.kind, p.reason)
          FROM ledger_reservation_changes p
          JOIN ledger_reservations r ON r.id = p.reservation_id
          JOIN virtual_accounts a ON a.id = p.account_id
         WHERE p.outcome = 'released' AND (r.kind, p.reason) NOT IN (VALUES ${declaredReleaseReasonsSql()})
        UNION ALL
        SELECT 'holds', a.account_ref, format('hold on entry %s: amount %s open %s, credit %s (%s %s %s)', r.owner_id, r.amount, r.open_amount,
                                              coalesce(e.amount, 0), coalesce(e.status, 'no entry'), e.kind, e.direction)
          FROM ledger_reservations r
          JOIN virtual_accounts a ON a.id = r.account_id
          LEFT JOIN ledger_entries e ON e.id = r.owner_id AND e.account_id = r.account_id
         WHERE r.kind IN ${HELD_CREDIT_KINDS_SQL}
           AND ((e.id IS NULL AND NOT ${ARCHIVED_ENTRY('r.owner_id')})
            OR r.amount > e.amount
            OR e.direction <> 'credit'
            OR (e.kind NOT IN ('payment', 'adjustment', 'transfer')
                AND NOT (e.kind = 'reversal' AND EXISTS (SELECT 1 FROM ledger_reservation_changes p JOIN ledger_reservations pr ON pr.id = p.reservation_id
                                                          WHERE p.entry_id = e.reverses_entry_id AND p.outcome = 'posted' AND p.amount = r.amount
                                                            AND pr.kind IN ${HELD_CREDIT_KINDS_SQL})))
            OR (r.open_amount > 0 AND (e.status = 'reversed' OR EXISTS (SELECT 1 FROM ledger_entries j WHERE j.reverses_entry_id = e.id AND j.kind = 'adjustment'))))
        UNION ALL
        SELECT 'holds', a.account_ref, format('return of hold %s: %s returned, debit %s of %s', r.owner_id, p.amount, p.entry_id, coalesce(d.amount, 0))
          FROM ledger_reservation_changes p
          JOIN ledger_reservations r ON r.id = p.reservation_id
          JOIN virtual_accounts a ON a.id = p.account_id
          LEFT JOIN ledger_entries d ON d.id = p.entry_id AND d.kind = 'settlement' AND d.direction = 'debit' AND d.account_id = p.account_id
         WHERE p.outcome = 'posted' AND r.kind IN ${HELD_CREDIT_KINDS_SQL} AND d.amount IS DISTINCT FROM p.amount
           AND NOT ${ARCHIVED_ENTRY('p.entry_id')}
         LIMIT 100`);
      // A customer's unheld balance, which its KYC limits are judged against, is its accounts' ledger balances less their held money.
      const customers = await rows<LedgerProblem>(`
        SELECT 'customer_totals' AS check, NULL AS "accountRef",
               format('customer %s: stored unheld balance %s; its accounts hold %s unheld', c.id, c.unheld_balance, coalesce(s.unheld, 0)) AS detail
          FROM customers c
          LEFT JOIN (SELECT customer_id, sum(ledger_spendable(ledger_balance, held_balance, pending_credits, false)) AS unheld
                       FROM virtual_accounts GROUP BY customer_id) s ON s.customer_id = c.id
         WHERE c.unheld_balance <> coalesce(s.unheld, 0)
         LIMIT 100`);
      // A customer's payouts of the day, which its daily payout limit is judged against: its settlement debits (a
      // failed or refunded one too, but not a return of held money to its payer) and its transfers to another
      // customer's account, each counted in the Africa/Lagos day of its debit. Recounted from the payouts since the
      // day began (an index of payout debits by time): each customer's latest day among them and its total there.
      const payoutDays = await rows<LedgerProblem>(`
        WITH payouts AS (
          SELECT a.customer_id, ${payoutDaySql('e.created_at')} AS day, e.amount
            FROM ledger_entries e
            JOIN virtual_accounts a ON a.id = e.account_id
           WHERE e.direction = 'debit' AND e.kind IN ('settlement', 'transfer')
             AND e.created_at >= CAST(${LAGOS_TODAY} AS timestamp) AT TIME ZONE 'Africa/Lagos'
             AND CASE WHEN e.kind = 'settlement' THEN NOT EXISTS (${HELD_CREDIT_RETURN_OF('e.id')})
                      ELSE EXISTS (SELECT 1 FROM ledger_entries x JOIN virtual_accounts xa ON xa.id = x.account_id
                                    WHERE x.tenant_id = e.tenant_id AND x.transaction_id = e.transaction_id AND x.direction = 'credit'
                                      AND xa.customer_id <> a.customer_id) END
        ), recounted AS (
          SELECT DISTINCT ON (customer_id) customer_id, day, sum(amount) AS total, count(*) AS payouts
            FROM payouts GROUP BY customer_id, day ORDER BY customer_id, day DESC
        )
        SELECT 'payout_day_totals' AS check, NULL AS "accountRef",
               format('customer %s of tenant %s: stored payouts of %s: %s; recounted from its entries: %s payout(s) of %s totalling %s',
                      c.id, c.tenant_id, coalesce(c.debits_day::text, 'no day'), c.debits_day_total,
                      coalesce(r.payouts, 0), coalesce(r.day::text, 'today'), coalesce(r.total, 0)) AS detail
          FROM customers c
          LEFT JOIN recounted r ON r.customer_id = c.id
         WHERE (c.debits_day >= ${LAGOS_TODAY} OR r.customer_id IS NOT NULL)
           AND (c.debits_day IS DISTINCT FROM r.day OR c.debits_day_total <> coalesce(r.total, 0))
         LIMIT 100`);
      // A transfer between accounts is its two entries: its debit of the sending account and its credit of the
      // receiving one, of kind transfer, of its amount, tenant and transaction, naming it. And every transfer debit
      // is some transfer's (a transfer transaction has exactly one debit: see 'transfers' below).
      const transfers = await rows<LedgerProblem>(`
        SELECT 'transfer_entries' AS check, f.account_ref AS "accountRef",
               format('transfer %s of tenant %s (%s from %s to %s, transaction %s): %s',
                      t.id, t.tenant_id, t.amount, f.account_ref, r.account_ref, t.transaction_id, w.fault) AS detail
          FROM internal_transfers t
          JOIN virtual_accounts f ON f.id = t.from_account_id
          JOIN virtual_accounts r ON r.id = t.to_account_id
          LEFT JOIN ledger_entries d ON d.id = t.debit_entry_id
          LEFT JOIN ledger_entries c ON c.id = t.credit_entry_id
         CROSS JOIN LATERAL (
           SELECT nullif(concat_ws('; ', ${transferEntryFault('d', 'debit', 't.from_account_id', 't.debit_entry_id')},
                                   ${transferEntryFault('c', 'credit', 't.to_account_id', 't.credit_entry_id')},
                                   CASE WHEN f.tenant_id <> t.tenant_id OR r.tenant_id <> t.tenant_id THEN 'an account is of another tenant' END), '') AS fault
         ) w
         WHERE w.fault IS NOT NULL
        UNION ALL
        SELECT 'transfer_entries', a.account_ref, format('transfer debit %s (transaction %s of tenant %s) is no transfer''s', e.id, e.transaction_id, e.tenant_id)
          FROM ledger_entries e
          JOIN virtual_accounts a ON a.id = e.account_id
         WHERE e.direction = 'debit' AND e.kind = 'transfer'
           AND NOT EXISTS (SELECT 1 FROM internal_transfers t WHERE t.debit_entry_id = e.id)
         LIMIT 100`);
      // A split move names the transfer that moved its part (see SPLIT_MOVE_TRANSFERS), or says why it did not move;
      // its payment is a credit to the splitting account, of which its parts moved no more than the net amount; and
      // every split transfer is named by exactly one move.
      const splits = await rows<LedgerProblem>(`
        WITH movements AS (${SPLIT_MOVE_TRANSFERS})
        SELECT 'split_moves' AS check, a.account_ref AS "accountRef",
               format('payment entry %s, part %s (%s %s to account %s): transfer %s %s',
                      x.payment_entry_id, x.position, x.movement, x.amount, x.to_account_id, x.transfer_id, w.fault) AS detail
          FROM movements x
          JOIN virtual_accounts a ON a.id = x.from_account_id
          LEFT JOIN ledger_entries p ON p.id = x.payment_entry_id
          LEFT JOIN internal_transfers t ON t.id = x.transfer_id
         CROSS JOIN LATERAL (
           SELECT CASE WHEN t.id IS NULL THEN 'does not exist'
                       ELSE nullif(concat_ws(', ',
                         CASE WHEN t.from_account_id <> x.from_account_id OR t.to_account_id <> x.to_account_id
                              THEN format('moves from account %s to %s', t.from_account_id, t.to_account_id) END,
                         CASE WHEN t.amount <> x.amount THEN format('moves %s', t.amount) END,
                         CASE WHEN t.source <> x.source THEN format('is a transfer of source %s', t.source) END,
                         CASE WHEN t.split_of_payment IS DISTINCT FROM p.provider_txn_ref AND p.id IS NOT NULL
                              THEN format('is marked the split of payment %s, not %s', t.split_of_payment, p.provider_txn_ref) END), '') END AS fault
         ) w
         WHERE w.fault IS NOT NULL
        UNION ALL
        SELECT 'split_moves', a.account_ref, format('payment entry %s, part %s: not moved, and no reason given', m.payment_entry_id, m.position)
          FROM split_moves m
          JOIN virtual_accounts a ON a.id = m.from_account_id
         WHERE m.transfer_id IS NULL AND btrim(coalesce(m.not_moved_reason, '')) = ''
        UNION ALL
        SELECT 'split_moves', a.account_ref,
               format('payment entry %s (%s %s %s of %s on account %s): its parts of tenant %s moved %s from account %s',
                      m.payment_entry_id, p.kind, p.direction, p.amount, p.tenant_id, p.account_id, m.tenant_id, m.moved, m.from_account_id)
          FROM (SELECT payment_entry_id, tenant_id, from_account_id, coalesce(sum(amount) FILTER (WHERE transfer_id IS NOT NULL), 0) AS moved
                  FROM split_moves GROUP BY payment_entry_id, tenant_id, from_account_id) m
          JOIN virtual_accounts a ON a.id = m.from_account_id
          LEFT JOIN ledger_entries p ON p.id = m.payment_entry_id
         WHERE (p.id IS NULL AND NOT ${ARCHIVED_ENTRY('m.payment_entry_id')}) OR p.direction <> 'credit' OR p.kind NOT IN ('payment', 'adjustment') OR p.account_id <> m.from_account_id
            OR p.tenant_id <> m.tenant_id OR a.tenant_id <> m.tenant_id OR m.moved > p.amount
        UNION ALL
        SELECT 'split_moves', a.account_ref, format('split transfer %s (of payment %s) is named by %s split moves', t.id, t.split_of_payment, count(x.transfer_id))
          FROM internal_transfers t
          JOIN virtual_accounts a ON a.id = t.from_account_id
          LEFT JOIN movements x ON x.transfer_id = t.id
         WHERE t.source = 'split'
         GROUP BY t.id, t.split_of_payment, a.account_ref
        HAVING count(x.transfer_id) <> 1
         LIMIT 100`);
      // A split part taken back from its receiver (see SPLIT_TAKE_BACKS) was taken back with its payment's compensation;
      // every adjustment answering a transfer's entry is such a take-back, recorded on exactly one move; and a
      // compensated payment had every part that moved taken back.
      const takeBacks = await rows<LedgerProblem>(`
        SELECT 'split_take_backs' AS check, a.account_ref AS "accountRef",
               format('payment entry %s, part %s (%s to account %s, transfer %s), taken back: %s',
                      x.payment_entry_id, x.position, x.amount, x.to_account_id, x.transfer_id, w.fault) AS detail
          FROM (${SPLIT_TAKE_BACKS}) x
          JOIN virtual_accounts a ON a.id = x.from_account_id
         CROSS JOIN LATERAL (SELECT ${TAKE_BACK_FAULT} AS fault) w
         WHERE w.fault IS NOT NULL
           AND NOT ${ARCHIVED_ENTRY('x.payment_entry_id')} AND NOT ${ARCHIVED_ENTRY('x.taken_back_entry_id')}
        UNION ALL
        SELECT 'split_take_backs', a.account_ref,
               format('adjustment debit %s answers the credit %s of transfer %s and is recorded as the take-back of %s split moves',
                      j.id, j.reverses_entry_id, coalesce(t.id::text, 'none'), count(m.position))
          FROM ledger_entries j
          JOIN ledger_entries o ON o.id = j.reverses_entry_id AND o.kind = 'transfer' AND o.direction = 'credit'
          JOIN virtual_accounts a ON a.id = j.account_id
          LEFT JOIN internal_transfers t ON t.credit_entry_id = o.id
          LEFT JOIN split_moves m ON m.taken_back_entry_id = j.id
         WHERE j.kind = 'adjustment' AND j.direction = 'debit'
         GROUP BY j.id, j.reverses_entry_id, t.id, a.account_ref
        HAVING count(m.position) <> 1
        UNION ALL
        SELECT 'split_take_backs', a.account_ref,
               format('adjustment credit %s answers the debit %s of transfer %s, and no split move records a take-back in its transaction %s',
                      j.id, j.reverses_entry_id, coalesce(t.id::text, 'none'), j.transaction_id)
          FROM ledger_entries j
          JOIN ledger_entries o ON o.id = j.reverses_entry_id AND o.kind = 'transfer' AND o.direction = 'debit'
          JOIN virtual_accounts a ON a.id = j.account_id
          LEFT JOIN internal_transfers t ON t.debit_entry_id = o.id
         WHERE j.kind = 'adjustment' AND j.direction = 'credit'
           AND NOT EXISTS (SELECT 1 FROM split_moves m JOIN ledger_entries b ON b.id = m.taken_back_entry_id
                            WHERE m.transfer_id = t.id AND b.transaction_id = j.transaction_id)
        UNION ALL
        SELECT 'split_take_backs', a.account_ref,
               format('payment entry %s was compensated (entry %s) but its part %s (%s to account %s, transfer %s) was not taken back',
                      m.payment_entry_id, c.id, m.position, m.amount, m.to_account_id, m.transfer_id)
          FROM split_moves m
          JOIN ledger_entries c ON c.reverses_entry_id = m.payment_entry_id AND c.kind = 'adjustment' AND c.direction = 'debit'
          JOIN virtual_accounts a ON a.id = m.from_account_id
         WHERE m.transfer_id IS NOT NULL AND m.taken_back_entry_id IS NULL
         LIMIT 100`);
      // A dynamic account's return names a payment its account holds to return; once returned, the payment's held
      // money was posted by the return's settlement debit, by the service (no operator), and the settlement it names is the payout of
      // that return, of the amount returned. And every return the service made is recorded as returned.
      const dynamicReturns = await rows<LedgerProblem>(`
        SELECT 'dynamic_account_returns' AS check, a.account_ref AS "accountRef",
               format('return of payment entry %s (%s, settlement %s): %s', d.entry_id, d.status, coalesce(d.merchant_tx_ref, '-'), w.fault) AS detail
          FROM dynamic_account_returns d
          JOIN virtual_accounts a ON a.id = d.account_id
          LEFT JOIN ledger_reservations h ON h.owner_id = d.entry_id AND h.kind IN ${HELD_CREDIT_KINDS_SQL}
          LEFT JOIN ${HELD_CREDIT_RETURNS} r ON r.entry_id = d.entry_id
          LEFT JOIN settlements s ON s.merchant_tx_ref = d.merchant_tx_ref
         CROSS JOIN LATERAL (
           SELECT CASE WHEN h.id IS NULL OR h.kind <> 'payment_mismatch' OR h.account_id <> d.account_id OR h.tenant_id <> d.tenant_id
                       THEN 'names no payment its account holds to return'
                       WHEN d.status <> 'returned' THEN NULL
                       WHEN r.entry_id IS NULL THEN 'the held money was not posted by a return'
                       WHEN r.user_id IS NOT NULL THEN format('the held money was returned by user %s, not by the service', r.user_id)
                       WHEN s.id IS NULL THEN 'no such settlement'
                       WHEN s.debit_entry_id <> r.debit_entry_id OR s.account_id <> d.account_id
                       THEN format('the settlement (debit %s) is not the payout of the return (debit %s)', s.debit_entry_id, r.debit_entry_id)
                       WHEN s.amount <> r.amount THEN format('the settlement pays %s of the %s returned', s.amount, r.amount) END AS fault
         ) w
         WHERE w.fault IS NOT NULL
        UNION ALL
        SELECT 'dynamic_account_returns', a.account_ref,
               format('payment entry %s: returned by the service (debit %s) but its return is %s', r.entry_id, r.debit_entry_id, coalesce(d.status, 'not recorded'))
          FROM ${HELD_CREDIT_RETURNS} r
          JOIN virtual_accounts a ON a.id = r.account_id
          LEFT JOIN dynamic_account_returns d ON d.entry_id = r.entry_id
         WHERE r.user_id IS NULL AND d.status IS DISTINCT FROM 'returned'
         LIMIT 100`);
      // Double entry: every transaction's postings of a tenant sum to zero, and so does every tenant's books
      // (its customer accounts' running balances and its system accounts' postings); what is in transit is
      // what the open settlements debited.
      const books = await rows<LedgerProblem>(`
        WITH postings AS (
          SELECT tenant_id, transaction_id, CASE WHEN direction = 'credit' THEN amount ELSE -amount END AS amount FROM ledger_entries
          UNION ALL
          SELECT tenant_id, transaction_id, amount FROM ledger_system_postings
        )
        SELECT 'balanced_transactions' AS check, NULL AS "accountRef",
               format('transaction %s of tenant %s: %s postings summing to %s kobo', transaction_id, tenant_id, count(*), sum(amount)) AS detail
          FROM postings GROUP BY tenant_id, transaction_id HAVING sum(amount) <> 0 OR count(*) < 2
        UNION ALL
        -- A transfer is one debit and one credit of the same amount, on two accounts, and nothing else.
        SELECT 'transfers', NULL, format('transfer transaction %s of tenant %s: %s entries, %s accounts, %s system postings', e.transaction_id, e.tenant_id,
                                         count(*), count(DISTINCT e.account_id), (SELECT count(*) FROM ledger_system_postings x WHERE x.tenant_id = e.tenant_id AND x.transaction_id = e.transaction_id))
          FROM ledger_entries e
         WHERE e.kind = 'transfer'
         GROUP BY e.tenant_id, e.transaction_id
        HAVING count(*) <> 2 OR count(DISTINCT e.account_id) <> 2 OR count(*) FILTER (WHERE e.direction = 'debit') <> 1 OR min(e.amount) <> max(e.amount)
            OR EXISTS (SELECT 1 FROM ledger_system_postings x WHERE x.tenant_id = e.tenant_id AND x.transaction_id = e.transaction_id)
        UNION ALL
        SELECT 'tenant_books', NULL, format('tenant %s: customer accounts %s, system accounts %s, not zero', t.id, coalesce(c.total, 0), coalesce(s.total, 0))
          FROM tenants t
          LEFT JOIN (SELECT tenant_id, sum(ledger_balance) AS total FROM virtual_accounts GROUP BY tenant_id) c ON c.tenant_id = t.id
          LEFT JOIN (SELECT tenant_id, sum(amount) AS total FROM (SELECT tenant_id, amount FROM ledger_system_postings
                                                                  UNION ALL
                                                                  SELECT tenant_id, amount FROM ledger_archived_system_postings) p
                      GROUP BY tenant_id) s ON s.tenant_id = t.id
         WHERE coalesce(c.total, 0) + coalesce(s.total, 0) <> 0
        UNION ALL
        SELECT 'payouts_in_transit', NULL, format('tenant %s: in transit %s; open settlements debited %s', t.id, coalesce(s.total, 0), coalesce(o.total, 0))
          FROM tenants t
          LEFT JOIN (SELECT tenant_id, sum(amount) AS total FROM (SELECT tenant_id, account, amount FROM ledger_system_postings
                                                                  UNION ALL
                                                                  SELECT tenant_id, account, amount FROM ledger_archived_system_postings) p
                      WHERE account = 'payouts_in_transit' GROUP BY tenant_id) s ON s.tenant_id = t.id
          LEFT JOIN (SELECT e.tenant_id, sum(e.amount) AS total FROM settlements x JOIN ledger_entries e ON e.id = x.debit_entry_id
                      WHERE e.status = 'provisional' GROUP BY e.tenant_id) o ON o.tenant_id = t.id
         WHERE coalesce(s.total, 0) <> coalesce(o.total, 0)
         LIMIT 100`);
      // The rows of the ledger's history name their tenant and account without a foreign key (its check would
      // share-lock both rows from every payment); a tenant or account with history refuses deletion instead. The
      // records naming an entry hold no foreign key either: the entries are partitioned by month, and a key could name
      // only a partition's (id, created_at); so do the rows naming a delivery, an inbound event or a tenant event. None of
      // those is ever deleted while something names it (retention deletes only unverified inbound events, with their
      // digest keys), so a missing one is a fault, unless its month was archived (history_archived_rows holds its id).
      const orphans = await rows<LedgerProblem>(`
        SELECT 'orphan_references' AS check, NULL AS "accountRef",
               format('%s row %s names %s %s, which does not exist', h.table_name, h.row_id, h.parent, h.parent_id) AS detail
          FROM (
            ${ORPHAN_SOURCES}
          ) h
         WHERE h.parent_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM tenants t WHERE h.parent = 'tenant' AND t.id = h.parent_id)
           AND NOT EXISTS (SELECT 1 FROM virtual_accounts a WHERE h.parent = 'account' AND a.id = h.parent_id)
           AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE h.parent = 'entry' AND e.id = h.parent_id)
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE h.parent = 'delivery' AND d.id = h.parent_id)
           AND NOT EXISTS (SELECT 1 FROM inbound_events i WHERE h.parent = 'inbound event' AND i.id = h.parent_id)
           AND NOT EXISTS (SELECT 1 FROM tenant_events v WHERE h.parent = 'tenant event' AND v.id = h.parent_id)
           -- A row naming a row of an archived month names a row that was, not a missing one.
           AND NOT EXISTS (SELECT 1 FROM history_archived_rows z
                            WHERE z.id = h.parent_id
                              AND z.table_name = CASE h.parent WHEN 'entry' THEN 'ledger_entries' WHEN 'delivery' THEN 'webhook_deliveries'
                                                               WHEN 'inbound event' THEN 'inbound_events' WHEN 'tenant event' THEN 'tenant_events' END)
         LIMIT 100`);
      // The keys that hold the history's rules across its months: each payment credit holds its provider transaction's
      // key, each answering entry the key of the entry it answers, each verified inbound event its request id's and each
      // unverified one its body's; a key names the row that holds it.
      const keys = await rows<LedgerProblem>(`
        SELECT 'ledger_keys' AS check, NULL AS "accountRef",
               format('payment credit %s of provider transaction %s does not hold its key (held by %s)', e.id, e.provider_txn_ref,
                      coalesce(k.entry_id::text, 'no entry')) AS detail
          FROM ledger_entries e LEFT JOIN ledger_payment_credit_keys k ON k.provider_txn_ref = e.provider_txn_ref
         WHERE e.kind = 'payment' AND k.entry_id IS DISTINCT FROM e.id
        UNION ALL
        SELECT 'ledger_keys', NULL,
               format('entry %s answering %s does not hold its key (held by %s)', e.id, e.reverses_entry_id, coalesce(k.entry_id::text, 'no entry'))
          FROM ledger_entries e LEFT JOIN ledger_entry_reversal_keys k ON k.reverses_entry_id = e.reverses_entry_id
         WHERE e.reverses_entry_id IS NOT NULL AND k.entry_id IS DISTINCT FROM e.id
        UNION ALL
        SELECT 'ledger_keys', NULL,
               format('inbound event %s of request %s does not hold its key (held by %s)', e.id, e.request_id, coalesce(k.event_id::text, 'no event'))
          FROM inbound_events e LEFT JOIN inbound_event_request_keys k ON k.request_id = e.request_id
         WHERE e.signature_valid AND e.request_id IS NOT NULL AND k.event_id IS DISTINCT FROM e.id
        UNION ALL
        SELECT 'ledger_keys', NULL,
               format('unverified event %s does not hold the key of its body (held by %s)', e.id, coalesce(k.event_id::text, 'no event'))
          FROM inbound_events e LEFT JOIN inbound_event_digest_keys k ON k.raw_sha256 = e.raw_sha256
         WHERE NOT e.signature_valid AND e.raw_sha256 IS NOT NULL AND k.event_id IS DISTINCT FROM e.id
         LIMIT 100`);
      return [
        ...totals,
        ...chain,
        ...reversals,
        ...settlements,
        ...adjustments,
        ...holds,
        ...customers,
        ...payoutDays,
        ...books,
        ...transfers,
        ...splits,
        ...takeBacks,
        ...dynamicReturns,
        ...orphans,
        ...keys,
      ];
    },
  };
}
