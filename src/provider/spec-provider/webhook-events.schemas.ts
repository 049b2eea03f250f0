import { z } from 'zod';

/** The provider's webhook bodies: only the fields we act on; unknown fields are accepted and kept in the stored payload. */

export const paymentEventSchema = z.object({
  event_type: z.literal('payment_success'),
  requestId: z.string().min(1).max(200),
  data: z.object({
    transaction: z.object({
      transactionId: z.string().min(1).max(200),
      transactionAmount: z.number(),
      fee: z.number().default(0),
      currency: z.string().default('NGN'),
      aliasAccountReference: z.string().min(1).max(200),
      narration: z.string().default(''),
    }),
    customer: z.object({ senderName: z.string().default('') }).default({ senderName: '' }),
  }),
});
export type PaymentEvent = z.output<typeof paymentEventSchema>;

export const payoutEventSchema = z.object({
  event_type: z.enum(['payout_success', 'payout_failed', 'payout_refund']),
  requestId: z.string().min(1).max(200),
  data: z.object({
    transaction: z.object({
      merchantTxRef: z.string().min(1).max(200),
    }),
  }),
});
