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
  limit: z
    .enum(['single_credit', 'balance', 'amount_mismatch', 'velocity_rule'])
    .describe(
      "The KYC limit the credit went over, amount_mismatch: a dynamic account's payment held to return to its payer, or velocity_rule: a credit past a velocity rule of the tenant's",
    ),
  limitAmount: moneySchema.describe(
    'The limit, or for amount_mismatch the account’s expected amount (0.00 when it has none); 0.00 for velocity_rule',
  ),
  reason: z.string().nullable().describe('For velocity_rule, the rule’s message: why the credit is held; null for the others'),
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

const payerBankCodeSchema = z
  .string()
  .trim()
  .min(1)
  .max(20)
  .optional()
  .describe("The payer's bank, when the payment's bank name does not name one bank of the list");

export const holdReturnLookupBodySchema = z.object({ bankCode: payerBankCodeSchema });

export const holdReturnBodySchema = holdReleaseBodySchema.extend({
  bankCode: payerBankCodeSchema,
  confirmedAccountName: z
    .string()
    .trim()
    .min(1, 'confirmedAccountName must not be empty')
    .max(200, 'confirmedAccountName must be at most 200 characters')
    .optional()
    .describe(
      "The provider's name for the payer's account, as the operator saw it looked up and confirms paying it: needed only when it is not the payer's name",
    ),
});

const returnDestinationSchema = z.object({
  entryId: z.string(),
  accountRef: z.string(),
  payerName: z.string().describe('The payer as the payment webhook names them'),
  bankCode: z.string(),
  accountNumber: z.string(),
  accountName: z.string().describe("The provider's name for the payer's account, looked up now"),
});

export const holdReturnLookupResponseSchema = returnDestinationSchema.extend({
  namesMatch: z
    .boolean()
    .describe(
      "Whether accountName is the payer's name (case, accents, punctuation and word order aside); when not, a return needs confirmedAccountName",
    ),
});

export const holdReturnResponseSchema = returnDestinationSchema.extend({
  returned: moneySchema,
  merchantTxRef: z.string(),
  nameCheck: z
    .enum(['matched', 'operator_confirmed'])
    .describe("Why the looked-up name is paid: it is the payer's, or the operator confirmed it"),
});

export const holdReleaseResponseSchema = z.object({ entryId: z.string(), accountRef: z.string(), released: moneySchema });

const LIMIT_MESSAGE = 'a limit must be a naira amount of 0 or more (at most two decimals), or null for no limit';
const limitSchema = z
  .string({ error: LIMIT_MESSAGE })
  .regex(/^\d{1,12}(\.\d{1,2})?$/, { error: LIMIT_MESSAGE })
  .transform((text) => parseNairaInput(text) ?? 0n)
  .nullable();

export const limitsBodySchema = z.object({ singleCredit: limitSchema, balance: limitSchema, dailyDebits: limitSchema });

const shownLimitsSchema = z.object({
  singleCredit: moneySchema.nullable(),
  balance: moneySchema.nullable(),
  dailyDebits: moneySchema.nullable(),
});

export const tierLimitsResponseSchema = z.object({
  tiers: z.array(shownLimitsSchema.extend({ tier: z.number().int(), source: z.enum(['platform', 'tenant']) })),
});

export const tierParamsSchema = z.object({
  tier: z.enum(['1', '2', '3'], { error: 'tier must be 1, 2 or 3' }).transform((text) => Number(text) as 1 | 2 | 3),
});

export const customerLimitsParamsSchema = z.object({ id: z.string().max(100) });

export const customerLimitsResponseSchema = z.object({ limits: shownLimitsSchema.nullable() });
