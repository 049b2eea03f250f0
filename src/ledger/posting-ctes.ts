import { customerLimitsSql } from '../policies/kyc-limits/customer-limits';
import {
  closesAccountSql,
  closesOnPaymentSql,
  heldToReturnReasonSql,
  heldToReturnSql,
  mismatchActionSql,
  varianceSql,
} from '../policies/dynamic-account-amount/amount-policy';
import { accountHoldsCreditsSql, accountMayPayOutSql } from '../policies/account-freeze/account-freeze';
import { customerMayMoveMoneySql } from '../policies/customer-standing/customer-standing';
import { allowedCreditSql, heldOfCreditSql, heldReasonSql, judgesCreditSql } from '../policies/kyc-limits/credit-limits';
import { dailyPayoutAllowsSql, payoutDaySql, usedTodaySql } from '../policies/kyc-limits/daily-payout-limit';
import type { AppendTotals, EntryDraft, SystemPosting } from './ledger.types';

// The SQL of a posting, as CTEs: one statement locks the customers' rows and then the account rows, appends
// the entries with their seq and running columns, and moves the accounts' and the customers' totals. One append
// (appendCtes) for every posting, to one account or several; posting-statements and ledger.repo compose it.

export interface AppendFragment {
  /** CTEs to place in a WITH list (see appendCtes): posting_account, posting_drafts, posting_inserted, posting_moved, … */
  ctes: string;
  bindings: Record<string, unknown>;
}

/** An entry's columns for its counters: the amount its transaction posts to each system account an entry can name. */
const COUNTER_COLUMNS = 'clearing_amount, provider_fees_amount, payouts_in_transit_amount';

/**
 * The entries an append writes, from `draftsWithAccount` (drafts d, each beside its locked account a):
 * seq and the running columns follow the account's totals as they were under the lock. An entry carries its
 * transaction's postings to system accounts (its counters), which its row's CHECK holds it balanced with.
 */
function insertEntries(draftsWithAccount: string): string {
  return `INSERT INTO ledger_entries (id, tenant_id, account_id, seq, direction, kind, amount, fee, currency, status, narration,
                                  provider_txn_ref, transaction_group_id, transaction_id, reverses_entry_id, balance_after, credits_to_date,
                                  debits_to_date, created_at, ${COUNTER_COLUMNS})
      SELECT d.id, a.tenant_id, a.id, a.last_seq + d.ord, d.direction, d.kind, d.amount, d.fee, 'NGN', d.status, d.narration,
             d.provider_txn_ref, d.transaction_group_id, d.transaction_id, d.reverses_entry_id,
             (a.total_credits + d.credits_run) - (a.total_debits + d.debits_run), a.total_credits + d.credits_run,
             a.total_debits + d.debits_run, clock_timestamp(), ${COUNTER_COLUMNS.replace(/(\w+)/g, 'd.$1')}
        FROM ${draftsWithAccount}
      RETURNING *`;
}

/**
 * The ledger's rules that hold across its months (the entries are partitioned by month, and a partitioned table's unique
 * index holds within a partition only), as rows of its key tables written with the entries: one payment credit per
 * provider transaction, one answer (a reversal, a restoration or a compensation) per entry. A second is refused by the
 * key's primary key, as ledger-constraints reads it. Each inserts nothing for an entry of another kind.
 */
const KEY_CTES = `posting_payment_keys AS (
      INSERT INTO ledger_payment_credit_keys (provider_txn_ref, tenant_id, entry_id, created_at)
      SELECT provider_txn_ref, tenant_id, id, created_at FROM posting_inserted WHERE kind = 'payment'
    ), posting_reversal_keys AS (
      INSERT INTO ledger_entry_reversal_keys (reverses_entry_id, tenant_id, entry_id, created_at)
      SELECT reverses_entry_id, tenant_id, id, created_at FROM posting_inserted WHERE reverses_entry_id IS NOT NULL
    )`;

/**
 * A draft's counter postings as its counter columns (JSON strings): null together when it has none (its transaction
 * is balanced by other entries: a transfer, the parts of a compensation), else each account's amount, 0 when not named.
 * A cost is never an entry's counter (only a payout's fee, between system accounts, posts to it).
 */
export function counterColumnsJson(postings: SystemPosting[]): Record<string, string | null> {
  if (postings.length === 0) return { clearing_amount: null, provider_fees_amount: null, payouts_in_transit_amount: null };
  if (postings.some((posting) => posting.account === 'costs')) throw new Error('an entry names no counter posting to costs');
  const amountOf = (account: SystemPosting['account']) =>
    postings.filter((posting) => posting.account === account).reduce((sum, posting) => sum + posting.amount, 0n);
  return {
    clearing_amount: amountOf('clearing').toString(),
    provider_fees_amount: amountOf('provider_fees').toString(),
    payouts_in_transit_amount: amountOf('payouts_in_transit').toString(),
  };
}

/** The day the statement's payout counts in, from its debits' timestamp (ledger:verify counts the day again from them). */
const PAYOUT_DAY = payoutDaySql('max(created_at)');

/**
 * Each payment credit (or restoration of a reversed one, which reconciliation repairs judge alike, or the
 * receiving side of a transfer) among the drafts `draftsFrom` lists (d, beside its locked account a, the account's locked customer c and the
 * customer's limits l), judged against the customer's KYC limits (see policies/kyc-limits/credit-limits) in posting
 * order (by account, then within it); a payment the account's policy holds whole to return (`mismatch`) takes no room
 * under the limits. The credit itself always posts. Only the credits `judgedSql` (over d and c) keeps are judged.
 * Columns: id, account_id, customer_id,
 * tenant_id, amount, tier, single_credit, balance_limit, allowed (Y), held. posting_held returns each hold
 * written (entry_id, account_id, kind (the reservation's), amount held, tier, limit_kind (the reservation's reason),
 * limit_amount, credit_amount),
 * for the caller's rows.
 */
function judgedCreditsCte(
  draftsFrom: string,
  judgedSql = 'true',
  mismatch?: { heldSql: string; expectedSql: string },
  velocityNoteSql = 'CAST(NULL AS text)',
): string {
  // A payment a dynamic account returns is held whole: none of it is allowed, so it takes no room under the limits.
  const returned = mismatch?.heldSql ?? 'false';
  // A credit to an account frozen for credits is held whole too, until the freeze is lifted.
  const frozen = accountHoldsCreditsSql('a.frozen_for');
  // And a credit a velocity rule of the tenant's holds (the caller judged it under the account's locks): its rule's message.
  const velocity = `${velocityNoteSql} IS NOT NULL`;
  const allowed = `CASE WHEN ${returned} OR ${frozen} OR ${velocity} THEN 0 ELSE ${allowedCreditSql({ amount: 'd.amount', singleCredit: 'l.single_credit' })} END`;
  const held = heldOfCreditSql({
    amount: 's.amount',
    unheldBefore: 's.unheld0',
    balanceLimit: 's.balance_limit',
    allowed: 's.allowed',
    allowedRun: 's.allowed_run',
  });
  // Why each part is held is the policies' decision: the amount policy's for a returned mismatch, the KYC limits' else.
  const overLimits = heldReasonSql({
    amount: 'j.amount',
    allowed: 'j.allowed',
    held: 'j.held',
    singleCredit: 'j.single_credit',
    balanceLimit: 'j.balance_limit',
  });
  const toReturn = heldToReturnReasonSql({ expectedAmount: 'j.expected_amount' });
  return `posting_judged AS (
      SELECT s.id, s.account_id, s.customer_id, s.tenant_id, s.amount, s.tier, s.single_credit, s.balance_limit, s.allowed, s.returned,
             s.frozen, s.velocity_note, s.expected_amount, ${held} AS held
        FROM (SELECT d.id, a.id AS account_id, c.id AS customer_id, a.tenant_id, d.amount, l.tier, l.single_credit, l.balance AS balance_limit,
                     c.unheld_balance AS unheld0, ${returned} AS returned, ${frozen} AS frozen, ${velocityNoteSql} AS velocity_note,
                     ${mismatch?.expectedSql ?? 'CAST(NULL AS bigint)'} AS expected_amount,
                     ${allowed} AS allowed,
                     CAST(sum(${allowed}) OVER (PARTITION BY c.id ORDER BY a.id, d.ord) AS bigint) AS allowed_run
                FROM ${draftsFrom}
               WHERE d.direction = 'credit' AND ${judgesCreditSql({ kind: 'd.kind', newToCustomer: judgedSql })}) s
    ), posting_held AS (
      -- The reservation of what is held (see reservations), with the reason and the limit its policy gives.
      INSERT INTO ledger_reservations (id, tenant_id, account_id, kind, reason, owner_id, amount, tier, limit_amount, note)
      SELECT gen_random_uuid(), j.tenant_id, j.account_id,
             CASE WHEN j.frozen THEN 'credit_freeze' WHEN j.returned THEN 'payment_mismatch' WHEN j.velocity_note IS NOT NULL THEN 'velocity_hold'
                  ELSE 'kyc_limit' END,
             CASE WHEN j.frozen THEN 'account_frozen' WHEN j.returned THEN ${toReturn.reason} WHEN j.velocity_note IS NOT NULL THEN 'velocity_rule'
                  ELSE ${overLimits.reason} END,
             j.id, j.held, CASE WHEN j.frozen THEN NULL ELSE j.tier END,
             CASE WHEN j.frozen OR (NOT j.returned AND j.velocity_note IS NOT NULL) THEN NULL WHEN j.returned THEN ${toReturn.limitAmount}
                  ELSE ${overLimits.limitAmount} END,
             CASE WHEN NOT j.frozen AND NOT j.returned THEN j.velocity_note END
        FROM posting_judged j
       WHERE j.held > 0
      RETURNING owner_id AS entry_id, account_id, kind, amount, tier, reason AS limit_kind, limit_amount,
                (SELECT j.amount FROM posting_judged j WHERE j.id = owner_id) AS credit_amount
    )`;
}

/** The columns of a draft as JSON carries it (draftJson), for jsonb_to_recordset. */
export const DRAFT_COLUMNS = `ord int, id uuid, direction text, kind text, amount bigint, fee bigint, status text, narration text,
               provider_txn_ref text, transaction_group_id uuid, transaction_id uuid, reverses_entry_id uuid, clearing_amount bigint,
               provider_fees_amount bigint, payouts_in_transit_amount bigint`;

/** A draft as a JSON row of DRAFT_COLUMNS; `ord` numbers it within its account. */
export function draftJson(draft: EntryDraft, ord: number): Record<string, unknown> {
  return {
    ord,
    id: draft.id,
    direction: draft.direction,
    kind: draft.kind,
    amount: draft.amount.toString(),
    fee: draft.fee.toString(),
    status: draft.status,
    narration: draft.narration,
    provider_txn_ref: draft.providerTxnRef,
    transaction_group_id: draft.transactionGroupId,
    transaction_id: draft.transactionId,
    reverses_entry_id: draft.reversesEntryId,
    ...counterColumnsJson(draft.counterPostings),
  };
}

/** Whether a confirmed credit closes its account `a` (see the dynamic-account amount policy's closesAccountSql). */
function closesLockedAccountSql(grossMatches: string, judgementCloses: string): string {
  return closesAccountSql({ status: 'a.status', amountPolicy: 'a.amount_policy', grossMatches, judgementCloses });
}

/**
 * Each payment credit to a dynamic account among the drafts `draftsWithAccount` lists (d, beside its locked account
 * a), judged under the account's amount policy: columns id, tenant_id, account_id, expected_amount, amount_received,
 * amount_policy, on_mismatch, variance, action and closes_account (see policies/dynamic-account-amount).
 */
function paymentJudgementSql(draftsWithAccount: string): string {
  const judged = {
    amountPolicy: 'j.amount_policy',
    onMismatch: 'j.on_mismatch',
    expectedAmount: 'j.expected_amount',
    variance: 'j.variance',
  };
  const variance = varianceSql({
    amount: 'd.amount',
    fee: 'd.fee',
    status: 'a.status',
    expiresAt: 'a.expires_at',
    expectedAmount: 'a.expected_amount',
    clock: 'clock_timestamp()',
  });
  return `SELECT j.*,
                 ${mismatchActionSql(judged)} AS action,
                 ${closesOnPaymentSql(judged)} AS closes_account
            FROM (SELECT d.id, a.tenant_id, a.id AS account_id, a.expected_amount, d.amount + d.fee AS amount_received,
                         a.amount_policy, a.on_mismatch,
                         ${variance} AS variance
                    FROM ${draftsWithAccount}
                   WHERE d.direction = 'credit' AND d.kind IN ('payment', 'adjustment') AND a.amount_policy IS NOT NULL) j`;
}

/** What an append does besides posting its drafts; without any, it posts credits (payments to ordinary accounts, reversals). */
export interface AppendOptions {
  /**
   * The drafts may debit accounts (a settlement, a transfer, a compensation): `countTowardDaySql` (a boolean) says
   * whether the debits count toward their customers' payouts of the day (and their daily limit). Money moved between
   * one customer's accounts is no new money to the customer: a credit whose customer the statement also debits is not
   * judged against its limits. Without it the statement leaves the customers' day alone and does not look it up.
   */
  debits?: { countTowardDaySql: string };
  /**
   * A payout's checks on the rows as locked (`posting_gate`: customer_active, debits_open, funds_covered, tier, daily_limit,
   * used_today, debits): an account's drafts post only when its customer is active (a suspension committed while
   * the statement waited for the lock is seen) and the account is not frozen for debits, what it may spend (only confirmed money when `spendAvailableSql`)
   * covers its debits, and, when they count toward the day, the customer's daily limit allows them.
   */
  gate?: { spendAvailableSql: string };
  /**
   * What the statement releases of each account's pending credits and reserved money (a reversal of a provisional
   * or held credit): bigint SQL expressions over the locked account `a`.
   */
  releases?: { pendingSql: string; reservedSql: string };
  /**
   * The credits are payments the ledger judges in full (the payment credits' statement): a dynamic account's policy
   * (its variance recorded, a mismatch held whole to return) and the closing of the account a confirmed one completes.
   */
  judgesPayments?: boolean;
  /**
   * A text SQL expression over the draft d: the message of the velocity rule that holds the credit whole, null when none
   * does (a payment credit the caller judged under the tenant's velocity rules, with the account's locks held).
   */
  velocityNoteSql?: string;
}

/**
 * The one append, as CTEs of a WITH list: drafts to any number of accounts (a single account's posting is a group of
 * one). `draftsRelation` is a query returning the draft columns (DRAFT_COLUMNS) plus account_id, with ord numbered
 * 1..n within each account; a draft whose account_id is null posts nothing. Every customer's row is locked, in id
 * order, before any account's, and the accounts then in id order, after every draft is known, so two statements
 * sharing customers (or a caller locking several accounts with lockAccounts) wait for each other instead of
 * deadlocking. Then, under the locks: the gate (with `gate`), the judgement of the credits (the customers' KYC limits;
 * with `judgesPayments`, a dynamic account's policy), the reservations of what is held, the entries with their seq
 * and running columns (each carrying its counter postings), and the accounts' and the customers' totals; a customer whose row would
 * not change is not written. A caller may compose it with its own rows in the same statement (see posting-statements).
 */
export function appendCtes(draftsRelation: string, options: AppendOptions = {}): string {
  const { debits, gate, releases, judgesPayments = false, velocityNoteSql } = options;
  // Money moved between one customer's accounts is no new money to the customer: a credit whose customer the
  // statement also debits is not judged against its limits.
  const judged = debits
    ? `NOT EXISTS (SELECT 1 FROM posting_drafts x JOIN posting_account xa ON xa.id = x.account_id WHERE x.direction = 'debit' AND xa.customer_id = c.id)`
    : undefined;
  // A statement without debits never counts toward a customer's payouts of the day: it leaves the day's columns alone
  // and does not look the payout's day up.
  const countsTowardDay = debits ? `(n.debits > 0 AND ${debits.countTowardDaySql})` : null;
  const payoutDay = countsTowardDay
    ? `,
             debits_day = CASE WHEN ${countsTowardDay} THEN n.payout_day ELSE c.debits_day END,
             debits_day_total = CASE WHEN ${countsTowardDay}
                                     THEN CASE WHEN c.debits_day = n.payout_day THEN c.debits_day_total ELSE 0 END + n.debits
                                     ELSE c.debits_day_total END`
    : '';
  const payoutDayColumns = countsTowardDay
    ? `, sum(t.debits) AS debits,
                     (SELECT ${PAYOUT_DAY} FROM posting_inserted i
                       WHERE i.direction = 'debit' AND i.account_id IN (SELECT id FROM posting_account x WHERE x.customer_id = a.customer_id)) AS payout_day`
    : '';
  // A judged credit posted confirmed (a reversed payment's restoration) closes its account here, as its confirmation
  // would have (see confirmCreditsFragment): a statement can update the account's row only once.
  const closing = judgesPayments
    ? `status = CASE WHEN ${closesLockedAccountSql(
        `EXISTS (SELECT 1 FROM posting_drafts d WHERE d.account_id = a.id AND d.status = 'confirmed' AND d.amount + d.fee = a.expected_amount)`,
        `EXISTS (SELECT 1 FROM posting_drafts d JOIN posting_variance pv ON pv.id = d.id
                  WHERE d.account_id = a.id AND d.status = 'confirmed' AND pv.closes_account)`,
      )} THEN 'expired' ELSE v.status END,
             `
    : '';
  const variance = judgesPayments
    ? `posting_variance AS (
      -- Each payment credit to a dynamic account, judged against its expected amount and expiry.
      ${paymentJudgementSql('posting_drafts d JOIN posting_account a ON a.id = d.account_id')}
    ), posting_variance_recorded AS (
      INSERT INTO ledger_payment_variances (entry_id, tenant_id, account_id, expected_amount, amount_received, variance, action, closes_account)
      SELECT id, tenant_id, account_id, expected_amount, amount_received, variance, action, closes_account FROM posting_variance
      RETURNING entry_id
    ), `
    : '';
  // An ordinary account's credit is decided from its row alone; only a dynamic account that returns mismatches reads the
  // judgement, from posting_variance itself, so the hold and the recorded judgement agree (expiry counts by clock_timestamp()).
  const mismatch = judgesPayments
    ? {
        heldSql: heldToReturnSql({
          amountPolicy: 'a.amount_policy',
          onMismatch: 'a.on_mismatch',
          judgedReturn: `EXISTS (SELECT 1 FROM posting_variance pv WHERE pv.id = d.id AND pv.action = 'return')`,
        }),
        expectedSql: 'a.expected_amount',
      }
    : undefined;
  // With a gate the locked accounts are posting_locked, and posting_account those the gate lets post.
  const lockedAccounts = gate ? 'posting_locked' : 'posting_account';
  const gated = gate
    ? `, posting_gate AS (
      -- A payout's checks on the rows as locked: the customer is active, the account is not frozen for debits, its own
      -- money (what it may spend) covers its debits, then the customer's payouts of the day against its daily limit.
      -- Each tells a caller why nothing was posted.
      SELECT a.id, r.debits, ${customerMayMoveMoneySql('c.status')} AS customer_active, ${accountMayPayOutSql('a.frozen_for')} AS debits_open,
             ledger_spendable(a.ledger_balance, a.held_balance, a.pending_credits, ${gate.spendAvailableSql}) >= r.debits AS funds_covered,
             l.tier, l.daily_debits AS daily_limit,
             ${usedTodaySql({ day: 'c.debits_day', dayTotal: 'c.debits_day_total' })} AS used_today
        FROM posting_locked a JOIN posting_customer c ON c.id = a.customer_id JOIN posting_limits l ON l.customer_id = c.id
             CROSS JOIN LATERAL (SELECT coalesce(sum(d.amount), 0) AS debits FROM posting_drafts d
                                  WHERE d.account_id = a.id AND d.direction = 'debit') r
    ), posting_account AS (
      SELECT a.*
        FROM posting_locked a JOIN posting_gate g ON g.id = a.id
       WHERE g.customer_active AND g.debits_open AND g.funds_covered
         AND (NOT ${debits?.countTowardDaySql ?? 'false'}
              OR ${dailyPayoutAllowsSql({ amount: 'g.debits', limit: 'g.daily_limit', usedToday: 'g.used_today' })})
    )`
    : '';
  // The locks are FOR NO KEY UPDATE, the lock the UPDATEs below need anyway: FOR UPDATE would conflict with the key-share
  // locks that inserting rows referencing a customer or an account (a new account of the customer, a settlement) hold. An
  // account goes below zero only after a reversal or a compensation of money already spent; deficit_since keeps the
  // moment it started.
  const pendingReleased = releases ? ` - ${releases.pendingSql}` : '';
  const reservedReleased = releases ? ` - ${releases.reservedSql}` : '';
  const unheldReleased = releases ? ` + ${releases.reservedSql}` : '';
  return `
    posting_drafts AS (
      SELECT d.*,
             sum(CASE WHEN d.direction = 'credit' THEN d.amount ELSE 0 END) OVER (PARTITION BY d.account_id ORDER BY d.ord) AS credits_run,
             sum(CASE WHEN d.direction = 'debit' THEN d.amount ELSE 0 END) OVER (PARTITION BY d.account_id ORDER BY d.ord) AS debits_run
        FROM (${draftsRelation}) AS d
    ), posting_customer AS (
      -- The sort runs below the lock: rows are locked in id order, after every draft is known.
      SELECT id, tenant_id, ${gate ? 'status, ' : ''}kyc_tier, unheld_balance, debits_day, debits_day_total
        FROM customers
       WHERE id IN (SELECT customer_id FROM virtual_accounts WHERE id IN (SELECT account_id FROM posting_drafts))
       ORDER BY id
         FOR NO KEY UPDATE
    ), ${lockedAccounts} AS (
      SELECT id, tenant_id, customer_id, last_seq, total_credits, total_debits, ledger_balance, held_balance,${gate ? ' pending_credits,' : ''}
             status, expires_at, expected_amount, amount_policy, on_mismatch, frozen_for
        FROM virtual_accounts
       WHERE id IN (SELECT account_id FROM posting_drafts)
         -- Run once before the first account's row is returned (and so locked): every customer's row is locked first.
         AND (SELECT count(*) FROM posting_customer) > 0
       ORDER BY id
         FOR NO KEY UPDATE
    ), posting_limits AS (
      ${customerLimitsSql('posting_customer')}
    )${gated}, ${variance}${judgedCreditsCte(
      'posting_drafts d JOIN posting_account a ON a.id = d.account_id JOIN posting_customer c ON c.id = a.customer_id LEFT JOIN posting_limits l ON l.customer_id = c.id',
      judged,
      mismatch,
      velocityNoteSql,
    )}, posting_totals AS (
      SELECT account_id, count(*) AS count,
             coalesce(sum(amount) FILTER (WHERE direction = 'credit'), 0) AS credits,
             coalesce(sum(amount) FILTER (WHERE direction = 'debit'), 0) AS debits,
             coalesce(sum(amount) FILTER (WHERE direction = 'credit' AND status = 'provisional'), 0) AS pending_added
        FROM posting_drafts
       GROUP BY account_id
    ), posting_inserted AS (
      ${insertEntries('posting_drafts d JOIN posting_account a ON a.id = d.account_id')}
    ), ${KEY_CTES}, posting_moved AS (
      UPDATE virtual_accounts v
         SET last_seq = a.last_seq + t.count,
             total_credits = a.total_credits + t.credits,
             total_debits = a.total_debits + t.debits,
             ledger_balance = (a.total_credits + t.credits) - (a.total_debits + t.debits),
             pending_credits = v.pending_credits + t.pending_added${pendingReleased},
             held_balance = v.held_balance + (SELECT coalesce(sum(j.held), 0) FROM posting_judged j WHERE j.account_id = v.id)${reservedReleased},
             deficit_since = CASE WHEN (a.total_credits + t.credits) - (a.total_debits + t.debits) < 0
                                  THEN coalesce(v.deficit_since, clock_timestamp()) END,
             ${closing}updated_at = now()
        FROM posting_account a JOIN posting_totals t ON t.account_id = a.id
       WHERE v.id = a.id
      RETURNING v.id
    ), posting_customer_moved AS (
      UPDATE customers c
         SET unheld_balance = c.unheld_balance + n.unheld_moved${payoutDay}
        FROM (SELECT a.customer_id, sum(t.credits - t.debits${unheldReleased}) - (SELECT coalesce(sum(j.held), 0) FROM posting_judged j WHERE j.customer_id = a.customer_id) AS unheld_moved${payoutDayColumns}
                FROM posting_account a JOIN posting_totals t ON t.account_id = a.id
               GROUP BY a.customer_id) n
       -- A customer whose row would not change is not written: a credit held whole (its customer past the balance limit)
       -- moves no unheld money.
       WHERE c.id = n.customer_id AND (n.unheld_moved <> 0${countsTowardDay ? ` OR ${countsTowardDay}` : ''})
      RETURNING c.id
    )`;
}

/**
 * A posting to one account (`accountIdSql`, an expression: a subquery over the caller's CTEs, to gate the posting on
 * them), as the append's CTEs for a group of one with the bindings they read: a payout (`totals.requireFunds`) through
 * the gate, a reversal releasing what it answers. posting-statements and ledger.repo compose it.
 */
export function appendFragment(accountIdSql: string, drafts: EntryDraft[], totals: AppendTotals): AppendFragment {
  const payout = totals.requireFunds;
  const releases = totals.pendingReleased > 0n || totals.heldReleased > 0n;
  return {
    ctes: appendCtes(
      `SELECT ${accountIdSql} AS account_id, d.* FROM jsonb_to_recordset(CAST(:posting_drafts AS jsonb)) AS d(${DRAFT_COLUMNS})`,
      {
        debits: payout ? { countTowardDaySql: 'CAST(:posting_counts_toward_day AS boolean)' } : undefined,
        gate: payout ? { spendAvailableSql: 'CAST(:posting_spend_available AS boolean)' } : undefined,
        releases: releases
          ? { pendingSql: 'CAST(:posting_pending_released AS bigint)', reservedSql: 'CAST(:posting_held_released AS bigint)' }
          : undefined,
      },
    ),
    bindings: {
      posting_drafts: JSON.stringify(drafts.map((draft, index) => draftJson(draft, index + 1))),
      ...(payout ? { posting_counts_toward_day: payout.countsTowardDay, posting_spend_available: payout.from === 'available' } : {}),
      ...(releases
        ? { posting_pending_released: totals.pendingReleased.toString(), posting_held_released: totals.heldReleased.toString() }
        : {}),
    },
  };
}

/**
 * Provisional credits -> confirmed, as CTEs for a caller's single statement (a batch confirmation's
 * round, together with its claims): the accounts `accountIdsSql` names are locked first, in id order
 * (the one-time filter makes every lock come before any row is written, so this never deadlocks a
 * posting), then each credit `entryIdsSql` lists that is still provisional is confirmed (`posting_confirmed`:
 * id, account_id, amount, fee, transaction_group_id) and each account's pending credits are released by the sum it had
 * confirmed. One statement, so the locks are held only while Postgres runs it, never across a round trip
 * to a busy worker. An account opened for an expected amount expires in the same UPDATE when a credit of
 * that gross amount is confirmed; a dynamic account, when a credit whose judgement closes it is confirmed (see
 * policies/dynamic-account-amount; a statement can update a row only once).
 */
export function confirmCreditsFragment(entryIdsSql: string, accountIdsSql: string): string {
  return `
    posting_confirm_locked AS (
      SELECT id FROM virtual_accounts WHERE id = ANY(${accountIdsSql}) ORDER BY id FOR NO KEY UPDATE
    ), posting_confirmed AS (
      UPDATE ledger_entries SET status = 'confirmed', status_changed_at = clock_timestamp()
       WHERE id IN (${entryIdsSql}) AND status = 'provisional' AND direction = 'credit'
         AND (SELECT count(*) FROM posting_confirm_locked) >= 0
      RETURNING id, account_id, amount, fee, transaction_group_id
    ), posting_confirm_released AS (
      UPDATE virtual_accounts a
         SET pending_credits = a.pending_credits - s.amount,
             -- Only a dynamic account's confirmation looks its judgements up.
             status = CASE WHEN ${closesLockedAccountSql(
               'a.expected_amount = ANY(s.grosses)',
               `EXISTS (SELECT 1 FROM posting_confirmed c JOIN ledger_payment_variances v ON v.entry_id = c.id
                         WHERE c.account_id = a.id AND v.closes_account)`,
             )} THEN 'expired' ELSE a.status END,
             updated_at = now()
        FROM (SELECT account_id, sum(amount) AS amount, array_agg(amount + fee) AS grosses FROM posting_confirmed GROUP BY account_id) s
       WHERE a.id = s.account_id
      RETURNING a.id
    )`;
}
