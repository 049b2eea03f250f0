import type { DbOrTrx } from '../db';
import { createHeldCreditsRepo } from '../ledger/held-credits.repo';

/** The payer of a credit, as the provider's payment webhook named them. */
export interface Payer {
  name: string;
  accountNumber: string | null;
  bankName: string | null;
}

/** Who paid a credit, as the provider's payment webhook (the inbound event the credit was posted from) names them. */
export function createPayersRepo(db: DbOrTrx) {
  const heldCredits = createHeldCreditsRepo(db);
  return {
    /**
     * The payer the credit's payment webhook names (the credit of a webhook, or of an operator's assignment of
     * one). Money held again after a failed return is held on the credit reversing the return's debit: its payer
     * is the returned credit's.
     */
    async payerOf(entryId: string): Promise<Payer | undefined> {
      const origin = await heldCredits.heldFrom(entryId);
      const result = await db.raw(
        `SELECT coalesce(i.sender_name, i.payload #>> '{data,customer,senderName}') AS name,
                i.payload #>> '{data,customer,accountNumber}' AS account_number,
                i.payload #>> '{data,customer,bankName}' AS bank_name
           FROM inbound_events i
          WHERE i.entry_id = ANY(CAST(:origin AS uuid[])) OR i.assigned_entry_id = ANY(CAST(:origin AS uuid[]))
          LIMIT 1`,
        { origin },
      );
      const row = result.rows[0] as { name: string | null; account_number: string | null; bank_name: string | null } | undefined;
      return row ? { name: row.name ?? '', accountNumber: row.account_number, bankName: row.bank_name } : undefined;
    },
  };
}
