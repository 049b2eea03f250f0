import type { Kobo } from '../../money';

/**
 * The KYC limits' decision on credits: each credit posts whole, and the part of it over the customer's
 * single-credit limit, and the part that would take the customer's unheld balance (all its accounts' ledger
 * balances less their held money) over the balance limit, is held with the limit that explains it. Credits are
 * judged in posting order. With U the unheld balance and Y a credit's allowed part (its amount up to the
 * single-credit limit), each credit raises U by Y but never past the balance limit (nor lowers one already past
 * it), so after the credits so far U = max(U0, min(limit, U0 + their Y)): a running sum the caller keeps (a window
 * sum in SQL), no recursion.
 *
 * Two sides of one rule: the SQL builders, which the posting statement runs for every credit under the customer's
 * lock (the facts are SQL expressions the caller hands in), and releasableUnderLimits, which re-judges open holds
 * against the limits that apply now (after a tier rise or new limits). Their tests run the same cases through both.
 */

/** The kinds of credit the limits judge: a payment, a reversed payment's restoration (an adjustment), a transfer's receiving side. */
const JUDGED_KINDS = ['payment', 'adjustment', 'transfer'] as const;

/**
 * Whether the limits judge a credit of `kind` (a boolean SQL expression): only new money to the customer.
 * `newToCustomer` is the caller's boolean: false for money moved between one customer's accounts.
 */
export function judgesCreditSql(credit: { kind: string; newToCustomer: string }): string {
  return `${credit.kind} IN (${JUDGED_KINDS.map((kind) => `'${kind}'`).join(', ')}) AND ${credit.newToCustomer}`;
}

/** The facts of one credit's judgement, as SQL expressions (bigint kobo; a null limit is no limit). */
export interface CreditFactsSql {
  /** The credit's amount. */
  amount: string;
  /** The customer's single-credit limit. */
  singleCredit: string;
}

/** Y: the part of a credit the balance limit judges (its amount up to the single-credit limit); the rest is held. */
export function allowedCreditSql(facts: CreditFactsSql): string {
  return `least(${facts.amount}, coalesce(${facts.singleCredit}, ${facts.amount}))`;
}

/** The facts of the balance limit's judgement of a credit, as SQL expressions. */
export interface BalanceFactsSql {
  amount: string;
  /** The customer's unheld balance before any credit of the statement. */
  unheldBefore: string;
  /** The customer's balance limit. */
  balanceLimit: string;
  /** This credit's allowed part (allowedCreditSql, or 0 for a credit another rule holds whole). */
  allowed: string;
  /** The sum of the allowed parts of the customer's credits so far, this one included. */
  allowedRun: string;
}

/** The part of a credit held (bigint): its amount less what it raised the customer's unheld balance by. */
export function heldOfCreditSql(facts: BalanceFactsSql): string {
  const unheld = (run: string) =>
    `CASE WHEN ${facts.balanceLimit} IS NULL THEN ${facts.unheldBefore} + ${run} ELSE greatest(${facts.unheldBefore}, least(${facts.balanceLimit}, ${facts.unheldBefore} + ${run})) END`;
  return `CAST(${facts.amount} - (${unheld(facts.allowedRun)} - ${unheld(`(${facts.allowedRun} - ${facts.allowed})`)}) AS bigint)`;
}

/** The reasons a part of a credit is held over the limits: the limit that explains it. */
export const CREDIT_LIMIT_REASONS = ['single_credit', 'balance'] as const;

/** The facts of a held part's reason, as SQL expressions (bigint kobo; a null limit is no limit). */
export interface HeldFactsSql {
  /** The credit's amount, its allowed part (allowedCreditSql) and the part held (heldOfCreditSql). */
  amount: string;
  allowed: string;
  held: string;
  /** The customer's single-credit and balance limits. */
  singleCredit: string;
  balanceLimit: string;
}

/**
 * Which limit explains the part of a credit held (`reason`, one of CREDIT_LIMIT_REASONS) and that limit's amount
 * (`limitAmount`): the single-credit limit when the part over it alone accounts for what is held, else the balance
 * limit. SQL expressions in and out.
 */
export function heldReasonSql(facts: HeldFactsSql): { reason: string; limitAmount: string } {
  const overSingleCredit = `${facts.amount} - ${facts.allowed} >= ${facts.held}`;
  const [singleCredit, balance] = CREDIT_LIMIT_REASONS;
  return {
    reason: `CASE WHEN ${overSingleCredit} THEN '${singleCredit}' ELSE '${balance}' END`,
    limitAmount: `CASE WHEN ${overSingleCredit} THEN ${facts.singleCredit} ELSE ${facts.balanceLimit} END`,
  };
}

/** A customer's open holds over its limits, oldest credit first, across its accounts, and what they are judged against now. */
export interface OpenHolds {
  /** The customer's accounts' ledger balances less their reserved money. */
  unheldBalance: Kobo;
  singleCredit: Kobo | null;
  balanceLimit: Kobo | null;
  holds: Array<{ entryId: string; accountId: string; open: Kobo; credit: Kobo }>;
}

/**
 * What of each open hold today's limits no longer justify, oldest credit first whichever account it is in:
 * the part of a credit above the single-credit limit stays held, and releases stop once the customer's unheld
 * balance reaches the balance limit.
 */
export function releasableUnderLimits(customer: OpenHolds): Array<{ entryId: string; accountId: string; amount: Kobo }> {
  let unheld = customer.unheldBalance;
  const releases: Array<{ entryId: string; accountId: string; amount: Kobo }> = [];
  for (const hold of customer.holds) {
    const overSingle = customer.singleCredit === null || hold.credit <= customer.singleCredit ? 0n : hold.credit - customer.singleCredit;
    let amount = hold.open > overSingle ? hold.open - overSingle : 0n;
    if (customer.balanceLimit !== null) {
      const room = customer.balanceLimit > unheld ? customer.balanceLimit - unheld : 0n;
      if (amount > room) amount = room;
    }
    if (amount > 0n) {
      releases.push({ entryId: hold.entryId, accountId: hold.accountId, amount });
      unheld += amount;
    }
  }
  return releases;
}
