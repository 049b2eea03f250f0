import { formatKobo } from '../money';
import type { SplitRule } from './split-rules.service';

export function presentSplitRule(rule: SplitRule) {
  return {
    accountRef: rule.accountRef,
    feeBearer: rule.feeBearer,
    parts: rule.parts.map((part) => ({
      toAccountRef: part.toAccountRef,
      percent: part.basisPoints === null ? null : part.basisPoints / 100,
      amount: part.amount === null ? null : formatKobo(part.amount),
    })),
    createdAt: rule.createdAt.toISOString(),
    updatedAt: rule.updatedAt.toISOString(),
  };
}
