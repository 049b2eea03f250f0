import { z } from 'zod';
import { moneySchema, nairaAmountSchema, pageLimitSchema, paginationSchema, timestampSchema } from '../http/schemas';

export const transferBodySchema = z.object({
  toAccountRef: z
    .string({ error: 'toAccountRef is required' })
    .trim()
    .min(1, { error: 'toAccountRef is required' })
    .max(100, { error: 'toAccountRef must be at most 100 characters' }),
  amount: nairaAmountSchema('invalid amount'),
  narration: z
    .string({ error: 'narration must be text' })
    .trim()
    .max(100, { error: 'narration must be at most 100 characters' })
    .optional(),
});
export type TransferBody = z.output<typeof transferBodySchema>;

export const internalTransferSchema = z.object({
  id: z.uuid(),
  fromAccountRef: z.string(),
  toAccountRef: z.string(),
  amount: moneySchema,
  narration: z.string(),
  status: z.literal('completed'),
  /** Who made it: an API key, a dashboard user, or an account's split rule. */
  source: z.enum(['api', 'dashboard', 'split']),
  /** For a split's part, the provider's transaction id of the confirmed payment it came from; else null. */
  splitOfPayment: z.string().nullable(),
  createdAt: timestampSchema,
});

export const internalTransferParamsSchema = z.object({ id: z.string().max(100) });

export const transferListQuerySchema = z.object({
  after: z.string().max(100).optional(),
  limit: pageLimitSchema,
});

export const transferListResponseSchema = z.object({ transfers: z.array(internalTransferSchema), pagination: paginationSchema });
