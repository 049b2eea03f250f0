import { z } from 'zod';
import { metadataFilterSchema, metadataSchema, metadataViewSchema } from '../http/metadata';
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
  metadata: metadataSchema.optional().describe("The tenant's own data on the transfer, fixed from then on (a transfer is not changed)"),
});
export type TransferBody = z.output<typeof transferBodySchema>;

export const internalTransferSchema = z.object({
  id: z.uuid(),
  fromAccountRef: z.string(),
  toAccountRef: z.string(),
  amount: moneySchema,
  narration: z.string(),
  /** completed; or, for a transfer the approval policy holds, awaiting_approval, rejected or expired. */
  status: z.enum(['completed', 'awaiting_approval', 'rejected', 'expired']),
  /** Who made it: an API key, a dashboard user, or an account's split rule. */
  source: z.enum(['api', 'dashboard', 'split']),
  /** For a split's part, the provider's transaction id of the confirmed payment it came from; else null. */
  splitOfPayment: z.string().nullable(),
  metadata: metadataViewSchema,
  createdAt: timestampSchema,
});

export const heldTransferStatusSchema = z.enum(['awaiting_approval', 'approved', 'rejected', 'expired']);

export const heldTransferSchema = z.object({
  id: z.uuid().describe('The transfer keeps this id once approved'),
  status: heldTransferStatusSchema,
  fromAccountRef: z.string(),
  toAccountRef: z.string(),
  amount: moneySchema,
  currency: z.literal('NGN'),
  narration: z.string(),
  maker: z.string().describe("The maker's email, or 'API key'"),
  makerUserId: z.uuid().nullable(),
  createdAt: timestampSchema,
  expiresAt: timestampSchema,
  decidedBy: z.string().nullable(),
  decidedAt: timestampSchema.nullable(),
  decisionNote: z.string().nullable(),
});

export const heldTransferListQuerySchema = z.object({
  status: heldTransferStatusSchema.default('awaiting_approval'),
  after: z.string().optional(),
});

export const heldTransferListResponseSchema = z.object({ transfers: z.array(heldTransferSchema), pagination: paginationSchema });

export const rejectTransferBodySchema = z.object({
  note: z.string().trim().max(500, { error: 'note must be at most 500 characters' }).optional(),
});

export const internalTransferParamsSchema = z.object({ id: z.string().max(100) });

export const transferListQuerySchema = z.object({
  after: z.string().max(100).optional(),
  limit: pageLimitSchema,
  metadata: metadataFilterSchema,
});

export const transferListResponseSchema = z.object({ transfers: z.array(internalTransferSchema), pagination: paginationSchema });
