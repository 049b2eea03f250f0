import { presentMetadata } from '../http/metadata';
import type { BeneficiaryRecord } from './beneficiaries.repo';

export function presentBeneficiary(beneficiary: BeneficiaryRecord) {
  return {
    id: beneficiary.id,
    bankCode: beneficiary.bankCode,
    accountNumber: beneficiary.accountNumber,
    accountName: beneficiary.accountName,
    nickname: beneficiary.nickname,
    ...presentMetadata('metadata', beneficiary.metadata),
    nameCheckedAt: beneficiary.nameCheckedAt.toISOString(),
    createdAt: beneficiary.createdAt.toISOString(),
  };
}
