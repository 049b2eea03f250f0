import type { PostingPlan } from './ledger.types';
import { appendCtes, appendFragment, confirmCreditsFragment, DRAFT_COLUMNS } from './posting-ctes';

/**
 * A caller's own rows around a posting, for the hot paths that post in ONE statement (one round trip,
 * atomic without BEGIN/COMMIT): the ledger writes the money, the caller only what is its own. The parts
 * are CTEs of a WITH list (comma-separated, without WITH) and the statement's final SELECT. What the ledger
 * did is read only through `Posted`, the relations the ledger names for its caller: a caller never spells
 * the ledger's own CTE names, so they may change inside the ledger without breaking a caller.
 */
export interface StatementParts<Posted> {
  /** Runs before the posting and decides what it posts (claims, gates). */
  before: string;
  /** The caller's rows that refer to what was posted; none when the caller has no rows after. */
  after?: (posted: Posted) => string;
  select: (posted: Posted) => string;
}

/**
 * What the payment credits' statement posted, for its caller's `after` and `select`: relations (names to read
 * FROM) of the ledger's own.
 */
export interface PostedCredits {
  /** The entries posted: ledger entry rows (id, account_id, amount, fee, transaction_group_id, provider_txn_ref, created_at, …). */
  entries: string;
  /**
   * The money set aside of the credits posted, one row per credit with any: entry_id, account_id, kind (the
   * reservation's), amount (set aside), tier, limit_kind (its reason), limit_amount and credit_amount (the credit's amount).
   */
  reservations: string;
  /**
   * A dynamic account's judgement of each credit to it: id (the entry's), expected_amount, amount_received, variance,
   * action.
   */
  judgements: string;
}

/** What the settlement debit's statement did, for its caller's `after` and `select`. */
export interface PostedDebit {
  /** The debit posted (a ledger entry row), when it posted. */
  entries: string;
  /**
   * The checks of the payout on the rows as locked, one row when an account was selected: customer_active, debits_open,
   * funds_covered, tier, daily_limit, used_today, debits (why nothing was posted, when nothing was).
   */
  gate: string;
}

/** What the credit confirmations' statement did, for its caller's `after` and `select`. */
export interface ConfirmedCredits {
  /** The credits it confirmed: id, account_id, amount, fee, transaction_group_id. */
  confirmed: string;
}

const POSTED_CREDITS: PostedCredits = { entries: 'posting_inserted', reservations: 'posting_held', judgements: 'posting_variance' };
const POSTED_DEBIT: PostedDebit = { entries: 'posting_inserted', gate: 'posting_gate' };
const CONFIRMED_CREDITS: ConfirmedCredits = { confirmed: 'posting_confirmed' };

function withPosting<Posted>(parts: StatementParts<Posted>, posted: Posted, postingCtes: string): string {
  const after = parts.after?.(posted);
  return `
  WITH ${parts.before}, ${postingCtes}${
    after
      ? `,
  ${after}`
      : ''
  }
  ${parts.select(posted)}`;
}

/**
 * Payment credits to several accounts at once, whichever of them the caller's `before` CTEs decide to post
 * (live webhooks: only the events it claims), each judged (KYC limits, a dynamic account's policy): provisional
 * payments, or a reversed payment's confirmed restoration, judged as a new payment. `credits` names a relation
 * of those CTEs with columns account_id, position (1..n in posting order within each account), entry (a
 * paymentCreditRow) and velocity_note (the message of the tenant's velocity rule that holds the credit whole, judged
 * by the caller under the account's locks; null for a credit no rule holds). The customers and then the accounts are locked in id order after every credit is
 * known (see appendCtes).
 */
export function paymentCreditsStatement(parts: StatementParts<PostedCredits> & { credits: string }): string {
  return withPosting(
    parts,
    POSTED_CREDITS,
    appendCtes(
      `
    SELECT c.account_id, CAST(c.position AS int) AS ord, CAST(c.entry->>'id' AS uuid) AS id, 'credit'::text AS direction, c.entry->>'kind' AS kind,
           CAST(c.entry->>'amount' AS bigint) AS amount, CAST(c.entry->>'fee' AS bigint) AS fee, c.entry->>'status' AS status,
           c.entry->>'narration' AS narration, c.entry->>'provider_txn_ref' AS provider_txn_ref,
           CAST(c.entry->>'transaction_group_id' AS uuid) AS transaction_group_id, CAST(c.entry->>'transaction_id' AS uuid) AS transaction_id,
           CAST(c.entry->>'reverses_entry_id' AS uuid) AS reverses_entry_id, CAST(c.entry->>'clearing_amount' AS bigint) AS clearing_amount,
           CAST(c.entry->>'provider_fees_amount' AS bigint) AS provider_fees_amount,
           CAST(c.entry->>'payouts_in_transit_amount' AS bigint) AS payouts_in_transit_amount, CAST(c.velocity_note AS text) AS velocity_note
      FROM ${parts.credits} c`,
      { judgesPayments: true, velocityNoteSql: 'd.velocity_note' },
    ),
  );
}

/**
 * A settlement's debit (see postings.settlementDebit) to the account `accountIdSql` selects from the
 * caller's `before` CTEs, checked under the customer's and the account's locks. Nothing posts when it selects
 * no account, the customer is suspended, the account lacks the funds, or the payout would take the customer past
 * its daily limit; the caller's `select` may read why from the gate (PostedDebit: the locked rows' values, so a
 * suspension committed before the lock was granted is seen). The bindings are the posting's, to merge with the caller's.
 */
export function settlementDebitStatement(
  parts: StatementParts<PostedDebit> & { accountIdSql: string },
  debit: PostingPlan,
): { sql: string; bindings: Record<string, unknown> } {
  const fragment = appendFragment(parts.accountIdSql, debit.drafts, debit.totals);
  return { sql: withPosting(parts, POSTED_DEBIT, fragment.ctes), bindings: fragment.bindings };
}

/**
 * Confirms the provisional credits `entryIdsSql` lists (a query over the caller's `before` CTEs), after
 * locking the accounts `accountIdsSql` names in id order; ConfirmedCredits names those it confirmed. See
 * confirmCreditsFragment.
 */
export function confirmCreditsStatement(parts: StatementParts<ConfirmedCredits> & { entryIdsSql: string; accountIdsSql: string }): string {
  return withPosting(parts, CONFIRMED_CREDITS, confirmCreditsFragment(parts.entryIdsSql, parts.accountIdsSql));
}

/**
 * Entries to several accounts (`:entry_drafts`, JSON rows of DRAFT_COLUMNS plus account_id, `ord` numbering each
 * account's drafts) in ONE statement, so their transactions are balanced when the statement ends: a transfer's debit
 * and credit, or a compensation taking a split credit back from its account and its parts' accounts. The caller has
 * checked the funds under the accounts' locks (a compensation checks none: it may leave accounts in deficit);
 * `:debits_count_toward_day` says whether the debits count toward their customers' payouts of the day. Returns each
 * entry with the part of it held.
 */
export const ENTRIES_AMONG_ACCOUNTS_STATEMENT = `
  WITH ${appendCtes(`SELECT d.* FROM jsonb_to_recordset(CAST(:entry_drafts AS jsonb)) AS d(account_id uuid, ${DRAFT_COLUMNS})`, {
    debits: { countTowardDaySql: 'CAST(:debits_count_toward_day AS boolean)' },
  })}
  SELECT i.*, coalesce(j.held, 0) AS held FROM posting_inserted i LEFT JOIN posting_judged j ON j.id = i.id`;
