import type { Kobo } from '../money';

/** A customer's open KYC-limit reservations, oldest credit first, across its accounts, and what they are judged against now. */
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
