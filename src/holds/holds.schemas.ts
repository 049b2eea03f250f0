import { z } from 'zod';
import { moneySchema, timestampSchema } from '../http/schemas';
import { parseNairaInput } from '../money';

export const heldCreditSchema = z.object({
  entryId: z.string(),
  accountRef: z.string(),
  customerId: z.string(),
  customerName: z.string(),
  tier: z.number().int(),
  held: moneySchema,
  creditAmount: moneySchema,
  senderName: z.string(),
  limit: z.enum(['single_credit', 'balance']),
  limitAmount: moneySchema,
  since: timestampSchema,
});

export const holdsQueueResponseSchema = z.object({
  holds: z.array(heldCreditSchema),
  totalHeld: moneySchema,
  hasMore: z.boolean(),
});

export const holdParamsSchema = z.object({ entryId: z.string().max(100) });

export const holdReleaseBodySchema = z.object({
  note: z.string().trim().min(1, 'note is required').max(500, 'note must be at most 500 characters'),
});

export const holdReturnBodySchema = holdReleaseBodySchema.extend({
  bankCode: z.string().trim().min(1).max(20).optional().describe("The payer's bank, when the payment's bank name does not name one bank of the list"),
});

export const holdReturnResponseSchema = z.object({
  entryId: z.string(),
  accountRef: z.string(),
  returned: moneySchema,
  merchantTxRef: z.string(),
  bankCode: z.string(),
  accountNumber: z.string(),
});

export const holdReleaseResponseSchema = z.object({ entryId: z.string(), accountRef: z.string(), released: moneySchema });

const LIMIT_MESSAGE = 'a limit must be a naira amount of 0 or more (at most two decimals), or null for no limit';
const limitSchema = z
  .string({ error: LIMIT_MESSAGE })
  .regex(/^\d+(\.\d{1,2})?$/, { error: LIMIT_MESSAGE })
  .transform((text) => parseNairaInput(text) ?? 0n)
  .nullable();

export const limitsBodySchema = z.object({ singleCredit: limitSchema, balance: limitSchema, dailyDebits: limitSchema });

const shownLimitsSchema = z.object({ singleCredit: moneySchema.nullable(), balance: moneySchema.nullable(), dailyDebits: moneySchema.nullable() });

export const tierLimitsResponseSchema = z.object({
  tiers: z.array(shownLimitsSchema.extend({ tier: z.number().int(), source: z.enum(['platform', 'tenant']) })),
});

export const tierParamsSchema = z.object({
  tier: z.enum(['1', '2', '3'], { error: 'tier must be 1, 2 or 3' }).transform((text) => Number(text) as 1 | 2 | 3),
});

export const customerLimitsParamsSchema = z.object({ id: z.string().max(100) });

export const customerLimitsResponseSchema = z.object({ limits: shownLimitsSchema.nullable() });
