/**
 * A frozen account: frozen for debits, no money leaves it (a settlement, a batch item, a sweep, a transfer out are
 * refused); frozen for credits, money still arrives (the payer's bank has taken it already) but is held, reserved
 * whole until the freeze is lifted. Two sides of one rule: the TypeScript one for a caller that reads the account
 * (a transfer's sides), the SQL one for the posting statements, which judge the account's row as they locked it.
 */
export const FREEZE_SIDES = ['debits', 'credits', 'both'] as const;
export type FreezeSide = (typeof FREEZE_SIDES)[number];

/** Why an account is frozen: a closed list a person picks from (a free-text note goes to the audit entry). */
export const FREEZE_REASONS = ['regulatory_order', 'fraud_review', 'dispute', 'customer_request'] as const;
export type FreezeReason = (typeof FREEZE_REASONS)[number];

const REFUSES_DEBITS: readonly FreezeSide[] = ['debits', 'both'];
const HOLDS_CREDITS: readonly FreezeSide[] = ['credits', 'both'];

const sqlList = (sides: readonly FreezeSide[]) => sides.map((side) => `'${side}'`).join(', ');

/** Whether an account frozen for `frozenFor` (null: not frozen) may pay out. */
export function accountMayPayOut(frozenFor: string | null): boolean {
  return frozenFor === null || !(REFUSES_DEBITS as readonly string[]).includes(frozenFor);
}

/** The same, as a boolean SQL expression over the account's `frozen_for` expression. */
export function accountMayPayOutSql(frozenFor: string): string {
  return `(${frozenFor} IS NULL OR ${frozenFor} NOT IN (${sqlList(REFUSES_DEBITS)}))`;
}

/** Whether a credit to an account frozen for `frozenFor` is held whole. */
export function accountHoldsCredits(frozenFor: string | null): boolean {
  return frozenFor !== null && (HOLDS_CREDITS as readonly string[]).includes(frozenFor);
}

/** The same, as a boolean SQL expression over the account's `frozen_for` expression. */
export function accountHoldsCreditsSql(frozenFor: string): string {
  return `coalesce(${frozenFor} IN (${sqlList(HOLDS_CREDITS)}), false)`;
}

/** The refusal of a payout from a frozen account, naming the freeze. */
export function frozenRefusal(accountRef: string, freeze: { frozenFor: string; reason: string }): string {
  return `account ${accountRef} is frozen for ${freeze.frozenFor} (${freeze.reason}): no money may leave it until the freeze is lifted`;
}
