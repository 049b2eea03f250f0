import { z } from 'zod';
import { moneySchema, timestampSchema } from '../http/schemas';
import { FREEZE_REASONS, FREEZE_SIDES } from '../policies/account-freeze/account-freeze';

export const freezeBodySchema = z.object({
  frozenFor: z
    .enum(FREEZE_SIDES, { error: `frozenFor must be one of ${FREEZE_SIDES.join(', ')}` })
    .describe('debits: no money leaves the account; credits: money arriving is held until the freeze is lifted; both'),
  reason: z.enum(FREEZE_REASONS, { error: `reason must be one of ${FREEZE_REASONS.join(', ')}` }),
  note: z.string().trim().min(1).max(500).optional().describe('Kept in the audit log'),
});
export type FreezeBody = z.output<typeof freezeBodySchema>;

export const freezeResponseSchema = z.object({
  accountRef: z.string(),
  frozenFor: z.enum(FREEZE_SIDES),
  reason: z.enum(FREEZE_REASONS),
  frozenAt: timestampSchema,
  released: moneySchema.describe('Credits held by the freeze released by this change (a freeze no longer for credits)'),
});

export const unfrozenResponseSchema = z.object({
  accountRef: z.string(),
  released: moneySchema.describe('The credits the freeze held, released'),
});
