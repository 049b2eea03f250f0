import { z } from 'zod';
import { moneySchema, nairaAmountSchema, timestampSchema } from '../http/schemas';

const accountNumber = z
  .string({ error: 'accountNumber must be exactly 10 digits' })
  .regex(/^\d{10}$/, { error: 'accountNumber must be exactly 10 digits' });
const bankCode = z.string({ error: 'invalid bank code' }).regex(/^\d{3,6}$/, { error: 'invalid bank code' });

export const settleBodySchema = z.object({
  amount: nairaAmountSchema('invalid amount'),
  bankCode,
  accountNumber,
  narration: z.string().trim().max(100).optional(),
});

export const settlementStatusSchema = z.enum(['pending', 'processing', 'success', 'failed', 'refunded']);

export const settleResponseSchema = z.object({
  merchantTxRef: z.string(),
  status: settlementStatusSchema,
  amount: moneySchema,
  currency: z.literal('NGN'),
  accountRef: z.string(),
});

export const transferParamsSchema = z.object({ merchantTxRef: z.string().max(100) });

export const transferStatusSchema = z.object({
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
});

export const lookupBodySchema = z.object({ accountNumber, bankCode });

export const lookupResponseSchema = z.object({ AccountNumber: z.string(), AccountName: z.string() });

export const banksResponseSchema = z.object({ banks: z.array(z.object({ Code: z.string(), Name: z.string() })) });
