import { z } from 'zod';
import { accountNumberSchema as accountNumber, bankCodeSchema as bankCode } from '../beneficiaries/beneficiaries.schemas';
import { metadataFilterSchema, metadataSchema, metadataViewSchema, type Metadata } from '../http/metadata';
import { cursorQuerySchema, moneySchema, nairaAmountSchema, pageLimitSchema, paginationSchema, timestampSchema } from '../http/schemas';
import { APPROVAL_REASONS } from '../policies/payout-approval/payout-approval';
import { MAX_SCHEDULE_DAYS } from '../policies/scheduled-payout/scheduled-payout';
import type { Kobo } from '../money';

/** When a payout (or a batch) should start instead of now: an RFC 3339 instant with its offset, judged by the scheduled-payout policy. */
export const scheduledForSchema = z.iso
  .datetime({ offset: true, error: 'scheduledFor must be an RFC 3339 timestamp with a time zone, e.g. 2026-12-24T09:00:00+01:00' })
  .transform((text) => new Date(text));

/** A settle request's fields: its destination is a saved beneficiary, or a bank code and an account number. */
export const settleFields = {
  amount: nairaAmountSchema('invalid amount'),
  bankCode: bankCode.optional().describe('With accountNumber, the destination; omit both to pay a beneficiaryId'),
  accountNumber: accountNumber.optional(),
  beneficiaryId: z
    .string({ error: 'beneficiaryId must be a string' })
    .optional()
    .describe('A saved beneficiary to pay (its bank account and name) instead of bankCode and accountNumber'),
  narration: z.string().trim().max(100).optional(),
  scheduledFor: scheduledForSchema
    .optional()
    .describe(
      `Pay at this instant instead of now (RFC 3339 with an offset; in the future, at most ${MAX_SCHEDULE_DAYS} days ahead): the amount is reserved at once, and the payout can be cancelled until it starts`,
    ),
};

type DestinationFields = { bankCode?: string | undefined; accountNumber?: string | undefined; beneficiaryId?: string | undefined };

/** Exactly one destination: a beneficiaryId, or a bankCode and an accountNumber (each missing one named as before). */
export function requireOneDestination(body: DestinationFields, ctx: z.RefinementCtx): void {
  if (body.beneficiaryId !== undefined) {
    if (body.bankCode !== undefined || body.accountNumber !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['beneficiaryId'],
        message: 'give either beneficiaryId or bankCode and accountNumber, not both',
      });
    return;
  }
  if (body.bankCode === undefined && body.accountNumber === undefined) {
    ctx.addIssue({ code: 'custom', path: ['bankCode'], message: 'give bankCode and accountNumber, or beneficiaryId' });
    return;
  }
  if (body.bankCode === undefined) ctx.addIssue({ code: 'custom', path: ['bankCode'], message: 'invalid bank code' });
  if (body.accountNumber === undefined)
    ctx.addIssue({ code: 'custom', path: ['accountNumber'], message: 'accountNumber must be exactly 10 digits' });
}

/** The request as the service takes it: one destination or the other. */
type SettleExtras = { narration?: string | undefined; metadata?: Metadata | undefined; scheduledFor?: Date | undefined };

export type SettleBody =
  | ({ to: 'account'; amount: Kobo; bankCode: string; accountNumber: string } & SettleExtras)
  | ({ to: 'beneficiary'; amount: Kobo; beneficiaryId: string } & SettleExtras);

export function settleBodyOf(body: { amount: Kobo } & SettleExtras & DestinationFields): SettleBody {
  const { amount, narration, metadata, scheduledFor } = body;
  const extras = {
    ...(narration !== undefined ? { narration } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    ...(scheduledFor !== undefined ? { scheduledFor } : {}),
  };
  return body.beneficiaryId !== undefined
    ? { to: 'beneficiary', amount, beneficiaryId: body.beneficiaryId, ...extras }
    : { to: 'account', amount, bankCode: body.bankCode!, accountNumber: body.accountNumber!, ...extras };
}

/** A settle over the API: its fields and the tenant's metadata, fixed from then on (a settlement is not changed). */
export const settleBodySchema = z
  .object({ ...settleFields, metadata: metadataSchema.optional() })
  .superRefine(requireOneDestination)
  .transform(settleBodyOf);

export const settlementStatusSchema = z.enum(['pending', 'processing', 'success', 'failed', 'refunded']);

/**
 * A settle's answer and a transfer's status: a settlement's, a payout the approval policy holds (not yet, or never,
 * one), or `cancelled`: a scheduled payout cancelled before it started (never one).
 */
export const transferStatusSchema = z.enum([...settlementStatusSchema.options, 'awaiting_approval', 'rejected', 'expired', 'cancelled']);

/** A payout scheduled for a date: when (UTC, and as Lagos reads it), and where it stands. */
export const scheduleViewSchema = z
  .object({
    scheduledFor: timestampSchema,
    scheduledForLagos: z.string().describe('The same instant in Africa/Lagos time (UTC+01:00), e.g. 2026-12-24T09:00:00.000+01:00'),
    state: z
      .enum(['scheduled', 'started', 'cancelled', 'refused'])
      .describe(
        'scheduled: waiting for its time (status pending, its amount reserved); started: it became the settlement this transfer is; cancelled: cancelled before it started (status cancelled); refused: the settlement was refused at its time (status failed, see refusal)',
      ),
    refusal: z.string().nullable().describe('Why the settlement was refused at its time (state refused)'),
  })
  .optional()
  .describe('Present on a payout scheduled for a date (settle with scheduledFor)');

export const settleResponseSchema = z.object({
  merchantTxRef: z.string(),
  status: transferStatusSchema,
  amount: moneySchema,
  currency: z.literal('NGN'),
  accountRef: z.string(),
  metadata: metadataViewSchema,
  schedule: scheduleViewSchema,
});

export const settlementRefParamsSchema = z.object({ merchantTxRef: z.string().max(100) });

export const settlementViewSchema = z.object({
  merchantTxRef: z.string(),
  status: transferStatusSchema,
  amount: moneySchema,
  bankCode: z.string(),
  accountNumber: z.string(),
  attemptCount: z.number().int(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  currency: z.literal('NGN'),
  accountRef: z.string(),
  providerFee: moneySchema.nullable(),
  beneficiaryId: z.uuid().nullable().describe('The saved beneficiary the settlement paid, when it named one'),
  metadata: metadataViewSchema,
  schedule: scheduleViewSchema,
});

export const settlementListQuerySchema = cursorQuerySchema.extend({
  limit: pageLimitSchema,
  metadata: metadataFilterSchema,
  scheduled: z
    .enum(['true', 'false'], { error: 'scheduled must be true or false' })
    .optional()
    .describe('true: only the payouts still scheduled for later, soonest first (see docs/scheduled-payouts.md)'),
});

export const settlementListResponseSchema = z.object({ transfers: z.array(settlementViewSchema), pagination: paginationSchema });

export const lookupBodySchema = z.object({ accountNumber, bankCode });

export const lookupResponseSchema = z.object({ AccountNumber: z.string(), AccountName: z.string() });

export const banksResponseSchema = z.object({ banks: z.array(z.object({ Code: z.string(), Name: z.string() })) });

export const heldPayoutStatusSchema = z.enum(['awaiting_approval', 'approved', 'rejected', 'expired']);

export const heldPayoutSchema = z.object({
  merchantTxRef: z.string(),
  status: heldPayoutStatusSchema,
  accountRef: z.string(),
  amount: moneySchema,
  currency: z.literal('NGN'),
  bankCode: z.string(),
  accountNumber: z.string(),
  accountName: z.string().nullable(),
  beneficiaryId: z.string().nullable(),
  narration: z.string(),
  reasons: z
    .array(z.enum(APPROVAL_REASONS))
    .describe(
      'Why it waits: amount (at or above the policy), new_destination (the first payout there), velocity (a rule sent it to review), balance_sweep (a balance sweep made it)',
    ),
  maker: z.string().describe("The maker's email, 'API key', or 'balance sweep' for a sweep's payout"),
  makerUserId: z.uuid().nullable(),
  makerApiKeyId: z.uuid().nullable(),
  createdAt: timestampSchema,
  expiresAt: timestampSchema,
  decidedBy: z.string().nullable(),
  decidedAt: timestampSchema.nullable(),
  decisionNote: z.string().nullable(),
});

export const heldPayoutListQuerySchema = z.object({
  status: heldPayoutStatusSchema.default('awaiting_approval'),
  after: z.string().optional(),
});

export const heldPayoutListResponseSchema = z.object({ payouts: z.array(heldPayoutSchema), pagination: paginationSchema });

export const rejectBodySchema = z.object({ note: z.string().trim().max(500, { error: 'note must be at most 500 characters' }).optional() });
