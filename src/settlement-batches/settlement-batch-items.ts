import { AppError } from '../errors';
import { validate } from '../http/validation';
import { derivedIdempotencyKey } from '../idempotency/derived-keys';
import { settleBodySchema, type SettleBody } from '../settlements/settlements.schemas';
import type { BatchRecord } from './settlement-batches.repo';
import type { BatchItemInput } from './settlement-batches.schemas';

/** The kind of its items' reservations: a scheduled batch's keep them for its time, a held one's for its approval. */
export const itemReservationKind = (batch: Pick<BatchRecord, 'scheduledFor'>): 'scheduled_payout' | 'batch_approval' =>
  batch.scheduledFor !== null ? 'scheduled_payout' : 'batch_approval';

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

/** Failures an item outlasts (a rate limit, an outage): never its refusal, whether its turn or a dry run meets them. */
const TRANSIENT: ReadonlyArray<AppError['kind']> = ['rate_limited', 'provider_unavailable', 'unavailable'];

export const isTransientFailure = (error: AppError): boolean => TRANSIENT.includes(error.kind);

/**
 * The Idempotency-Key of the settlement an item makes: a retried chunk never makes a second one. Derived, so
 * no client request can claim it first and answer the item with a settlement of its own.
 */
export const settlementBatchItemKey = (batchId: string, reference: string): string =>
  derivedIdempotencyKey('settlement-batch', batchId, reference);
