import type { DbOrTrx } from '../db';
import { createHeldCreditsRepo, type HeldCredit } from '../ledger/held-credits.repo';
import { koboFromDb, type Kobo } from '../money';

export type { HeldCredit };

/** Reads of the ledger's holds (which only the ledger writes), for the operators' queue. */
export function createHoldsRepo(db: DbOrTrx) {
  const heldCredits = createHeldCreditsRepo(db);
  return {
    /** Oldest first: the money waiting longest is the next work. */
    listOpen: heldCredits.listOpen,

    findOpen: heldCredits.findOpen,

    /** Whether the held money of this tenant's credit was returned to its payer. */
    wasReturned: heldCredits.wasReturned,

    /** The kind of another feature's reservation holding the credit (a freeze's), which the queue leaves alone. */
    heldOutsideQueue: heldCredits.heldOutsideQueue,

    async totalHeld(tenantId: string): Promise<Kobo> {
      const row: { total: string } | undefined = await db('virtual_accounts')
        .where({ tenant_id: tenantId })
        .first(db.raw('coalesce(sum(held_balance), 0) AS total'));
      return koboFromDb(row?.total ?? 0);
    },
  };
}
