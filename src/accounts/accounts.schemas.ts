import { z } from 'zod';
import { metadataFilterSchema, metadataPatchSchema, metadataSchema, metadataViewSchema } from '../http/metadata';
import { cursorQuerySchema, moneySchema, nairaAmountSchema, paginationSchema, timestampSchema } from '../http/schemas';
import { AMOUNT_POLICIES, MISMATCH_HANDLINGS } from '../policies/dynamic-account-amount/amount-policy';
import { FREEZE_REASONS, FREEZE_SIDES } from '../policies/account-freeze/account-freeze';
import { RESERVATION_KIND_NAMES, RESERVATION_KINDS, type ReservationKind } from '../ledger/reservation-kinds';

/** The longest a dynamic account may stay open: 30 days. */
export const MAX_ACCOUNT_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

const lifetimeError = `expiresInSeconds must be a whole number of seconds from 1 to ${MAX_ACCOUNT_LIFETIME_SECONDS} (30 days)`;

export const provisionAccountBodySchema = z
  .object({
    externalRef: z.string().trim().min(1).max(100),
    name: z.string().trim().min(1).max(100),
    bvn: z
      .string()
      .regex(/^\d{11}$/, { error: 'bvn must be exactly 11 digits' })
      .optional(),
    callbackUrl: z.string().max(2048).optional(),
    expectedAmount: nairaAmountSchema('expectedAmount must be a positive amount with at most two decimals').optional(),
    expiresAt: z.iso
      .datetime({ offset: true, error: 'expiresAt must be an ISO 8601 timestamp with a time zone, e.g. 2026-12-31T18:00:00Z' })
      .optional()
      .describe('When the account stops accepting payments (at most 30 days ahead); or expiresInSeconds'),
    expiresInSeconds: z
      .number({ error: lifetimeError })
      .int({ error: lifetimeError })
      .min(1, { error: lifetimeError })
      .max(MAX_ACCOUNT_LIFETIME_SECONDS, { error: lifetimeError })
      .optional()
      .describe('Seconds from now until the account stops accepting payments (at most 2592000, 30 days); or expiresAt'),
    amountPolicy: z
      .enum(AMOUNT_POLICIES, { error: `amountPolicy must be one of ${AMOUNT_POLICIES.join(', ')}` })
      .optional()
      .describe(
        "How a payment's gross amount must compare with expectedAmount: exact (default with an expectedAmount), at_least, at_most, or any",
      ),
    onMismatch: z
      .enum(MISMATCH_HANDLINGS, { error: `onMismatch must be one of ${MISMATCH_HANDLINGS.join(', ')}` })
      .optional()
      .describe(
        'What happens to a payment the policy does not accept, or one after expiry: credit_and_flag (default) or return it to the payer',
      ),
    metadata: metadataSchema.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.expiresAt !== undefined && body.expiresInSeconds !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['expiresAt'], message: 'give expiresAt or expiresInSeconds, not both' });
    }
    if (body.expiresAt !== undefined) {
      const ahead = Date.parse(body.expiresAt) - Date.now();
      if (ahead <= 0) ctx.addIssue({ code: 'custom', path: ['expiresAt'], message: 'expiresAt must be in the future' });
      else if (ahead > MAX_ACCOUNT_LIFETIME_SECONDS * 1000)
        ctx.addIssue({ code: 'custom', path: ['expiresAt'], message: 'expiresAt must be at most 30 days ahead' });
    }
    if (body.amountPolicy !== undefined && body.amountPolicy !== 'any' && body.expectedAmount === undefined) {
      ctx.addIssue({ code: 'custom', path: ['expectedAmount'], message: `amountPolicy ${body.amountPolicy} requires an expectedAmount` });
    }
  });
export type ProvisionAccountBody = z.output<typeof provisionAccountBodySchema>;

export const virtualAccountSchema = z.object({
  ID: z.uuid(),
  AccountRef: z.string(),
  BankAccountNumber: z.string().regex(/^\d{10}$/),
  BankAccountName: z.string(),
  BankName: z.string(),
  Currency: z.literal('NGN'),
  Status: z.enum(['active', 'expired']),
  CustomerID: z.uuid(),
  CallbackURL: z.string().nullable(),
  ExpectedAmount: moneySchema.nullable(),
  ExpiresAt: timestampSchema
    .nullable()
    .describe('When a dynamic account stops accepting payments; null for an account that does not expire by time'),
  AmountPolicy: z.enum(AMOUNT_POLICIES).nullable().describe('A dynamic account only: how a payment must compare with ExpectedAmount'),
  OnMismatch: z
    .enum(MISMATCH_HANDLINGS)
    .nullable()
    .describe('A dynamic account only: what happens to a payment its policy does not accept'),
  InDeficit: z.boolean(),
  DeficitSince: timestampSchema.nullable(),
  Metadata: metadataViewSchema,
  CreatedAt: timestampSchema,
});
export type VirtualAccountView = z.infer<typeof virtualAccountSchema>;

export const accountRefParamsSchema = z.object({ accountRef: z.string().max(100) });

export const accountListQuerySchema = cursorQuerySchema.extend({ metadata: metadataFilterSchema });

export const accountMetadataBodySchema = z.object({ metadata: metadataPatchSchema });

export const accountListResponseSchema = z.object({
  accounts: z.array(virtualAccountSchema),
  pagination: paginationSchema,
});

/** heldBalance by the kind of reservation that sets the money aside: every kind, 0.00 when none. */
export const reservedSchema = z
  .object(Object.fromEntries(RESERVATION_KIND_NAMES.map((kind) => [kind, moneySchema])) as Record<ReservationKind, typeof moneySchema>)
  .describe(`heldBalance by kind: ${RESERVATION_KIND_NAMES.map((kind) => `${kind} (${RESERVATION_KINDS[kind].meaning})`).join(', ')}`);

/** The account's freeze, null when it is not frozen. */
export const freezeStateSchema = z
  .object({ frozenFor: z.enum(FREEZE_SIDES), reason: z.enum(FREEZE_REASONS), frozenAt: timestampSchema })
  .nullable()
  .describe('The freeze on the account (debits: no money leaves; credits: money arriving is held), null when none');

export const balanceResponseSchema = z.object({
  accountRef: z.string(),
  currency: z.literal('NGN'),
  ledgerBalance: moneySchema,
  availableBalance: moneySchema,
  pendingCredits: moneySchema,
  /** Money set aside (reserved): in the ledger balance, but no payout may spend it. */
  heldBalance: moneySchema,
  reserved: reservedSchema,
  freeze: freezeStateSchema,
  inDeficit: z.boolean(),
  asOf: timestampSchema,
});

/** The balance as of a past instant: only what the entries' running columns say truthfully of that instant. */
export const balanceAtResponseSchema = z
  .object({
    accountRef: z.string(),
    currency: z.literal('NGN'),
    ledgerBalance: moneySchema.describe("The running balance after the account's last entry at or before `at`; 0.00 before its first"),
    totalCredits: moneySchema.describe('Everything credited to the account up to `at`'),
    totalDebits: moneySchema.describe('Everything debited from the account up to `at`'),
    inDeficit: z.boolean().describe('Whether ledgerBalance was below zero'),
    asOf: timestampSchema.describe('The instant asked for'),
  })
  .describe(
    'The balance at `at`. Pending credits, the available balance, held and reserved money and the freeze are what they are now only: ask without `at`',
  );

/** The days of an account's daily balances: Africa/Lagos dates, inclusive. */
export const MAX_DAILY_BALANCE_DAYS = 366;

/** No ledger has a day before it; Postgres's dates end (year 0 is not one) long before. */
const EARLIEST_DAY = '1970-01-01';

const dayOf = (field: 'from' | 'to') =>
  z
    .string({ error: `${field} is required: a date as YYYY-MM-DD (Africa/Lagos)` })
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: `${field} must be a date as YYYY-MM-DD (Africa/Lagos)` })
    .refine((day) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day), {
      error: `${field} must be a real date as YYYY-MM-DD (Africa/Lagos)`,
    })
    .refine((day) => day >= EARLIEST_DAY, { error: `${field} must be ${EARLIEST_DAY} or later` });

export const dailyBalancesQuerySchema = z.object({
  from: dayOf('from').describe('The first day, YYYY-MM-DD (Africa/Lagos)'),
  to: dayOf('to').describe(`The last day, YYYY-MM-DD (Africa/Lagos), not after today; at most ${MAX_DAILY_BALANCE_DAYS} days in all`),
});

export const dailyBalancesResponseSchema = z.object({
  accountRef: z.string(),
  currency: z.literal('NGN'),
  timeZone: z.literal('Africa/Lagos'),
  days: z.array(
    z.object({
      date: z.string().describe('YYYY-MM-DD, an Africa/Lagos day'),
      openingBalance: moneySchema.describe("The balance at the day's start (00:00 Africa/Lagos)"),
      credits: moneySchema.describe('Credited during the day (reversals of debits included)'),
      debits: moneySchema.describe('Debited during the day (reversals of credits included)'),
      closingBalance: moneySchema.describe("The balance at the day's end: openingBalance + credits - debits; today's, the balance now"),
    }),
  ),
});

export const deficitAccountsResponseSchema = z.object({
  accounts: z.array(virtualAccountSchema.extend({ LedgerBalance: moneySchema })),
});
