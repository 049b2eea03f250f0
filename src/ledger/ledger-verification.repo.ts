import type { DbOrTrx } from '../db';

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
 * Recomputes the ledger from its entries and reports every disagreement with what was stored:
 * account totals, the running columns of each entry, reversals, settlement states, adjustments, held
 * money, the customers' unheld balances, and the double entry: balanced transactions, transfers of two entries, every tenant's
 * books summing to zero, and payouts in transit matching the open settlements.
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
        WITH sums AS (
          SELECT account_id,
                 coalesce(sum(amount) FILTER (WHERE direction = 'credit'), 0) AS credits,
                 coalesce(sum(amount) FILTER (WHERE direction = 'debit'), 0) AS debits,
                 coalesce(sum(amount) FILTER (WHERE direction = 'credit' AND status = 'provisional'), 0) AS pending,
                 coalesce(max(seq), 0) AS last_seq
            FROM ledger_entries GROUP BY account_id
        ), last AS (
          SELECT DISTINCT ON (account_id) account_id, balance_after FROM ledger_entries ORDER BY account_id, seq DESC
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
          FROM (SELECT *, lag(seq, 1, 0::bigint) OVER w AS prev_seq,
                          lag(credits_to_date, 1, 0::bigint) OVER w AS prev_credits,
                          lag(debits_to_date, 1, 0::bigint) OVER w AS prev_debits
                  FROM ledger_entries WINDOW w AS (PARTITION BY account_id ORDER BY seq)) e
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
           AND (t.id IS NULL OR t.account_id <> j.account_id OR t.direction = j.direction OR t.amount <> j.amount
                OR (j.direction = 'credit' AND t.kind NOT IN ('reversal', 'transfer'))
                OR (j.direction = 'debit' AND t.kind NOT IN ('payment', 'adjustment', 'transfer')))
         LIMIT 100`);
      // Held money: the account's held balance is what its holds still hold; each hold's releases add up to
      // what it released; a hold never exceeds its credit, and a reversed or taken-back credit holds nothing.
      // A return's release matches the settlement debit paying it back.
      const holds = await rows<LedgerProblem>(`
        SELECT 'holds' AS check, a.account_ref AS "accountRef", format('stored held balance %s; open holds %s', a.held_balance, coalesce(h.open, 0)) AS detail
          FROM virtual_accounts a
          LEFT JOIN (SELECT account_id, sum(amount - released) AS open FROM ledger_holds GROUP BY account_id) h ON h.account_id = a.id
         WHERE a.held_balance <> coalesce(h.open, 0)
        UNION ALL
        SELECT 'holds', a.account_ref, format('hold on entry %s: amount %s released %s, releases %s, credit %s (%s)', h.entry_id, h.amount, h.released, coalesce(r.total, 0), e.amount, e.status)
          FROM ledger_holds h
          JOIN virtual_accounts a ON a.id = h.account_id
          JOIN ledger_entries e ON e.id = h.entry_id
          LEFT JOIN (SELECT entry_id, sum(amount) AS total FROM ledger_hold_releases GROUP BY entry_id) r ON r.entry_id = h.entry_id
         WHERE h.released <> coalesce(r.total, 0)
            OR h.amount > e.amount
            OR e.direction <> 'credit'
            -- A payment's (or its restoration's, or a transfer's) hold, or a failed return's: held again on the credit reversing its debit.
            OR (e.kind NOT IN ('payment', 'adjustment', 'transfer') AND NOT (e.kind = 'reversal' AND EXISTS (SELECT 1 FROM ledger_hold_returns r WHERE r.debit_entry_id = e.reverses_entry_id AND r.amount = h.amount)))
            OR (h.released < h.amount AND (e.status = 'reversed' OR EXISTS (SELECT 1 FROM ledger_entries j WHERE j.reverses_entry_id = e.id AND j.kind = 'adjustment')))
        UNION ALL
        SELECT 'holds', a.account_ref, format('return of hold %s: %s returned, debit %s of %s', r.entry_id, r.amount, r.debit_entry_id, coalesce(d.amount, 0))
          FROM ledger_hold_returns r
          JOIN virtual_accounts a ON a.id = r.account_id
          LEFT JOIN ledger_entries d ON d.id = r.debit_entry_id AND d.kind = 'settlement' AND d.direction = 'debit'
         WHERE d.amount IS DISTINCT FROM r.amount
            OR r.amount <> (SELECT coalesce(sum(x.amount), 0) FROM ledger_hold_releases x WHERE x.entry_id = r.entry_id AND x.reason = 'returned')
         LIMIT 100`);
      // A customer's unheld balance, which its KYC limits are judged against, is its accounts' ledger balances less their held money.
      const customers = await rows<LedgerProblem>(`
        SELECT 'customer_totals' AS check, NULL AS "accountRef",
               format('customer %s: stored unheld balance %s; its accounts hold %s unheld', c.id, c.unheld_balance, coalesce(s.unheld, 0)) AS detail
          FROM customers c
          LEFT JOIN (SELECT customer_id, sum(ledger_balance - held_balance) AS unheld FROM virtual_accounts GROUP BY customer_id) s ON s.customer_id = c.id
         WHERE c.unheld_balance <> coalesce(s.unheld, 0)
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
          LEFT JOIN (SELECT tenant_id, sum(amount) AS total FROM ledger_system_postings GROUP BY tenant_id) s ON s.tenant_id = t.id
         WHERE coalesce(c.total, 0) + coalesce(s.total, 0) <> 0
        UNION ALL
        SELECT 'payouts_in_transit', NULL, format('tenant %s: in transit %s; open settlements debited %s', t.id, coalesce(s.total, 0), coalesce(o.total, 0))
          FROM tenants t
          LEFT JOIN (SELECT tenant_id, sum(amount) AS total FROM ledger_system_postings WHERE account = 'payouts_in_transit' GROUP BY tenant_id) s ON s.tenant_id = t.id
          LEFT JOIN (SELECT e.tenant_id, sum(e.amount) AS total FROM settlements x JOIN ledger_entries e ON e.id = x.debit_entry_id
                      WHERE e.status = 'provisional' GROUP BY e.tenant_id) o ON o.tenant_id = t.id
         WHERE coalesce(s.total, 0) <> coalesce(o.total, 0)
         LIMIT 100`);
      return [...totals, ...chain, ...reversals, ...settlements, ...adjustments, ...holds, ...customers, ...books];
    },
  };
}
