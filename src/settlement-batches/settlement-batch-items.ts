import { AppError } from '../errors';
import { validate } from '../http/validation';
import { settleBodySchema, type SettleBody } from '../settlements/settlements.schemas';
import type { BatchItemInput } from './settlement-batches.schemas';

type ItemValues = { [K in 'amount' | 'bankCode' | 'accountNumber' | 'beneficiaryId' | 'narration']: BatchItemInput[K] | null };

export type FieldsJudgement = { ok: true; request: SettleBody } | { ok: false; reason: string };

/**
 * An item's values judged by the rules of a single settle (its amount, then its bank code and account
 * number, or its beneficiary), with the message that settle's 400 would give.
 */
export function judgeItemFields(item: ItemValues): FieldsJudgement {
  // Values a stored item lacks are null; the settle schema reads them as absent.
  const fields = Object.fromEntries(Object.entries(item).filter(([, value]) => value !== null && value !== undefined));
  try {
    return { ok: true, request: validate(settleBodySchema, fields, 'body') };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, reason: error.message };
    throw error;
  }
}
