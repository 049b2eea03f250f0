import type { Trx } from '../db';
import { isUuid } from '../ids';
import { createBeneficiariesRepo, type BeneficiaryRecord } from './beneficiaries.repo';

/**
 * Locks the tenant's live beneficiary for the rest of `trx` (undefined when there is none): a domain that
 * starts using a beneficiary locks it first, so a delete (which checks its uses under the same lock) waits.
 */
export function lockBeneficiary(trx: Trx, tenantId: string, beneficiaryId: string): Promise<BeneficiaryRecord | undefined> {
  return isUuid(beneficiaryId) ? createBeneficiariesRepo(trx).lock(tenantId, beneficiaryId.toLowerCase()) : Promise.resolve(undefined);
}
