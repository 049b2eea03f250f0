import { z } from 'zod';
import { moneySchema, nairaAmountSchema, timestampSchema } from '../http/schemas';
import { RESERVATION_KINDS } from '../ledger/reservation-kinds';

const LIEN_REASONS = RESERVATION_KINDS.lien.reasons;

export const lienBodySchema = z.object({
  amount: nairaAmountSchema('amount must be a positive amount with at most two decimals'),
  reason: z.enum(LIEN_REASONS, { error: `reason must be one of ${LIEN_REASONS.join(', ')}` }),
  note: z.string().trim().min(1).max(500).optional(),
  expiresAt: timestampSchema
    .transform((text) => new Date(text))
    .refine((at) => at.getTime() > Date.now(), { error: 'expiresAt must be in the future' })
    .optional(),
});
export type LienBody = z.output<typeof lienBodySchema>;

export const lienParamsSchema = z.object({ accountRef: z.string(), lienId: z.string() });

export const lienResponseSchema = z.object({
  lienId: z.string(),
  accountRef: z.string(),
  amount: moneySchema,
  reason: z.enum(LIEN_REASONS),
  expiresAt: timestampSchema.nullable(),
});

export const liftedLienResponseSchema = z.object({ lienId: z.string(), accountRef: z.string(), released: moneySchema });

export const openLiensResponseSchema = z.object({
  liens: z.array(
    z.object({
      lienId: z.string(),
      amount: moneySchema,
      held: moneySchema.describe('What the lien still holds: its amount until it is lifted or expires'),
      reason: z.enum(LIEN_REASONS),
      expiresAt: timestampSchema.nullable(),
      placedAt: timestampSchema,
    }),
  ),
});
