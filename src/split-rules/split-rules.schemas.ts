import { z } from 'zod';
import { moneySchema, nairaAmountSchema, timestampSchema } from '../http/schemas';

export const MAX_SPLIT_PARTS = 10;

const PERCENT_ERROR = 'percent must be a number from 0.01 to 100, with at most two decimals';

/**
 * A percentage with at most two decimals, stored as hundredths of a percent: at least one hundredth (0.01), so
 * no value rounds to a part of nothing. The tolerance only absorbs binary floating point (0.07 * 100).
 */
const percent = z
  .number({ error: PERCENT_ERROR })
  .refine((value) => value >= 0.01 && value <= 100 && Math.abs(value * 100 - Math.round(value * 100)) < 1e-9, { error: PERCENT_ERROR });

const splitPartBodySchema = z
  .object({
    toAccountRef: z.string({ error: 'toAccountRef is required' }).min(1, { error: 'toAccountRef is required' }).max(100),
    percent: percent.optional(),
    amount: nairaAmountSchema('invalid amount').optional(),
  })
  .refine((part) => (part.percent === undefined) !== (part.amount === undefined), {
    error: 'each part names either percent or amount, not both',
  });

export const splitRuleBodySchema = z.object({
  parts: z
    .array(splitPartBodySchema, { error: 'parts must be a list' })
    .min(1, { error: 'a split rule needs at least one part' })
    .max(MAX_SPLIT_PARTS, { error: `a split rule has at most ${MAX_SPLIT_PARTS} parts` }),
  feeBearer: z.enum(['account', 'split'], { error: 'feeBearer must be "account" or "split"' }),
});

export type SplitRuleBody = z.infer<typeof splitRuleBodySchema>;

export const splitRuleResponseSchema = z.object({
  accountRef: z.string(),
  feeBearer: z.enum(['account', 'split']),
  parts: z.array(
    z.object({
      toAccountRef: z.string(),
      percent: z.number().nullable(),
      amount: moneySchema.nullable(),
    }),
  ),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
