import { isUniqueViolation } from '../db';

/**
 * What the ledger's keys refuse, as answers a caller can act on: the key tables are the ledger's own (see
 * migrations/20261212000100_ledger_history_by_month.ts and posting-ctes' KEY_CTES), so no other module spells them.
 */

/** A payment credit for this provider transaction already exists (one payment per provider transaction). */
export function isDuplicatePaymentCredit(error: unknown): boolean {
  return isUniqueViolation(error, 'ledger_payment_credit_keys_pkey');
}

/** The entry was already answered: another entry reverses it (its reversal, restoration or compensation; one each). */
export function isAlreadyAnswered(error: unknown): boolean {
  return isUniqueViolation(error, 'ledger_entry_reversal_keys_pkey');
}
