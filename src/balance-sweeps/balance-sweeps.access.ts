import { findAccountById } from '../accounts/accounts.access';
import type { BeneficiaryUseCheck } from '../beneficiaries/beneficiaries.service';
import { createBalanceSweepsRepo } from './balance-sweeps.repo';

/** Why a beneficiary may not be deleted: a balance sweep (not deleted) pays to it. The container hands it to the beneficiaries service. */
export const balanceSweepUse: BeneficiaryUseCheck = async (trx, beneficiary) => {
  const accountId = await createBalanceSweepsRepo(trx).accountPayingTo(beneficiary.tenantId, beneficiary.id);
  if (!accountId) return null;
  const account = await findAccountById(trx, accountId);
  return `the balance sweep of account ${account!.accountRef} pays to it; delete or change that sweep first`;
};
