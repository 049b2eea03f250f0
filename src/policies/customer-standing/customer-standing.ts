/**
 * A suspended customer's money does not move: no payout from its accounts (a settlement, a transfer) and no
 * transfer to them; only an active customer's. Two sides of one rule: customerMayMoveMoney for a caller that reads
 * the customer in TypeScript (a transfer's sides), customerMayMoveMoneySql for the settlement's debit statement,
 * which judges the customer's row as it locked it (a suspension committed while it waited is seen). Their test
 * runs the same cases through both.
 */
const MOVES_MONEY = 'active';

/** Whether a customer of `status` may pay out or receive a transfer. */
export function customerMayMoveMoney(status: string): boolean {
  return status === MOVES_MONEY;
}

/** The same, as a boolean SQL expression over the customer's `status` expression. */
export function customerMayMoveMoneySql(status: string): string {
  return `${status} = '${MOVES_MONEY}'`;
}
