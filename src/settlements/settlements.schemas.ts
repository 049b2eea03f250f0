import { z } from 'zod';
import { accountNumberSchema as accountNumber, bankCodeSchema as bankCode } from '../beneficiaries/beneficiaries.schemas';
import { moneySchema, nairaAmountSchema, timestampSchema } from '../http/schemas';
import type { Kobo } from '../money';

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
export type SettleBody =
  | { to: 'account'; amount: Kobo; bankCode: string; accountNumber: string; narration?: string | undefined }
  | { to: 'beneficiary'; amount: Kobo; beneficiaryId: string; narration?: string | undefined };

export function settleBodyOf(body: { amount: Kobo; narration?: string | undefined } & DestinationFields): SettleBody {
  const { amount, narration } = body;
  return body.beneficiaryId !== undefined
    ? { to: 'beneficiary', amount, beneficiaryId: body.beneficiaryId, ...(narration !== undefined ? { narration } : {}) }
    : {
        to: 'account',
        amount,
        bankCode: body.bankCode!,
        accountNumber: body.accountNumber!,
        ...(narration !== undefined ? { narration } : {}),
      };
}

export const settleBodySchema = z.object(settleFields).superRefine(requireOneDestination).transform(settleBodyOf);

export const settlementStatusSchema = z.enum(['pending', 'processing', 'success', 'failed', 'refunded']);

export const settleResponseSchema = z.object({
  merchantTxRef: z.string(),
  status: settlementStatusSchema,
  amount: moneySchema,
  currency: z.literal('NGN'),
  accountRef: z.string(),
});

export const settlementRefParamsSchema = z.object({ merchantTxRef: z.string().max(100) });

export const settlementViewSchema = z.object({
  merchantTxRef: z.string(),
  status: settlementStatusSchema,
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
});

export const lookupBodySchema = z.object({ accountNumber, bankCode });

export const lookupResponseSchema = z.object({ AccountNumber: z.string(), AccountName: z.string() });

export const banksResponseSchema = z.object({ banks: z.array(z.object({ Code: z.string(), Name: z.string() })) });
