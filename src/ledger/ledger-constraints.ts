import { isUniqueViolation } from '../db';

/**
 * What the ledger's unique indexes refuse, as answers a caller can act on: the index names are the
 * ledger's own (see migrations/20261122000300_ledger.ts), so no other module spells them.
 */

/** A payment credit for this provider transaction already exists (one payment per provider transaction). */
export function isDuplicatePaymentCredit(error: unknown): boolean {
  return isUniqueViolation(error, 'ledger_entries_one_payment_per_txn_idx');
}

/** The entry was already answered: another entry reverses it (its reversal, restoration or compensation; one each). */
export function isAlreadyAnswered(error: unknown): boolean {
  return isUniqueViolation(error, 'ledger_entries_one_reversal_idx');
}
