import { z } from 'zod';
import { metadataFilterSchema, metadataSchema, metadataViewSchema } from '../http/metadata';
import { moneySchema, nairaAmountSchema, timestampSchema } from '../http/schemas';
import { transferStatusSchema } from '../settlements/settlements.schemas';

export const paymentParamsSchema = z.object({
  transactionGroupId: z.string().max(100).describe("The payment's transactionGroupId, as its payment.received event names it"),
});

const payerBankCodeSchema = z
  .string()
  .trim()
  .min(1)
  .max(20)
  .optional()
  .describe("The payer's bank, needed only when the payment's bank name does not name exactly one bank of the bank list");

export const refundBodySchema = z.object({
  amount: nairaAmountSchema('invalid amount').optional().describe('Decimal naira; omitted: all that the payment has left to refund'),
  reason: z
    .string({ error: 'reason is required' })
    .trim()
    .min(1, 'reason is required')
    .max(500, 'reason must be at most 500 characters')
    .describe('Why the payer is refunded (kept with the refund; not sent to the payer)'),
  bankCode: payerBankCodeSchema,
  metadata: metadataSchema.optional(),
});

export const refundSchema = z.object({
  refundId: z.uuid(),
  transactionGroupId: z.uuid(),
  accountRef: z.string(),
  amount: moneySchema,
  currency: z.literal('NGN'),
  reason: z.string(),
  status: transferStatusSchema.describe(
    "The refund's settlement's status, or its held payout's under the approval policy: awaiting_approval, pending and processing count against what may be refunded, success is paid; failed, refunded (the bank sent it back), rejected and expired give the amount back to be refunded again",
  ),
  failureReason: z.string().nullable(),
  merchantTxRef: z.string().describe("The refund's settlement: follow it with GET /v1/transfers/{merchantTxRef}"),
  metadata: metadataViewSchema,
  createdAt: timestampSchema,
});

export const refundListSchema = z.object({
  transactionGroupId: z.uuid(),
  accountRef: z.string(),
  refundable: moneySchema.describe('What may still be refunded of the payment now (0.00 while it is provisional, or once reversed)'),
  refunds: z.array(refundSchema),
});

export const refundLookupBodySchema = z.object({ bankCode: payerBankCodeSchema });

export const refundLookupSchema = z.object({
  transactionGroupId: z.uuid(),
  accountRef: z.string(),
  refundable: moneySchema,
  payerName: z.string().describe('The payer as the payment names them'),
  bankCode: z.string(),
  accountNumber: z.string(),
  accountName: z.string().describe("The provider's name for the payer's account, looked up now"),
  namesMatch: z.boolean().describe("Whether that is the payer's name: a refund goes ahead only when it is"),
});

export const refundListQuerySchema = z.object({ metadata: metadataFilterSchema });
