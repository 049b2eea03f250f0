import { z } from 'zod';
import { cursorQuerySchema, moneySchema, nairaAmountSchema, paginationSchema, timestampSchema } from '../http/schemas';

export const provisionAccountBodySchema = z.object({
  externalRef: z.string().trim().min(1).max(100),
  name: z.string().trim().min(1).max(100),
  bvn: z
    .string()
    .regex(/^\d{11}$/, { error: 'bvn must be exactly 11 digits' })
    .optional(),
  callbackUrl: z.string().max(2048).optional(),
  expectedAmount: nairaAmountSchema('expectedAmount must be a positive amount with at most two decimals').optional(),
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
  InDeficit: z.boolean(),
  DeficitSince: timestampSchema.nullable(),
  CreatedAt: timestampSchema,
});
export type VirtualAccountView = z.infer<typeof virtualAccountSchema>;

export const accountRefParamsSchema = z.object({ accountRef: z.string().max(100) });

export const accountListQuerySchema = cursorQuerySchema;

export const accountListResponseSchema = z.object({
  accounts: z.array(virtualAccountSchema),
  pagination: paginationSchema,
});

export const balanceResponseSchema = z.object({
  accountRef: z.string(),
  currency: z.literal('NGN'),
  ledgerBalance: moneySchema,
  availableBalance: moneySchema,
  pendingCredits: moneySchema,
  /** Money over the customer's KYC tier limits: in the ledger balance, but no settlement may spend it. */
  heldBalance: moneySchema,
  inDeficit: z.boolean(),
  asOf: timestampSchema,
});

export const deficitAccountsResponseSchema = z.object({
  accounts: z.array(virtualAccountSchema.extend({ LedgerBalance: moneySchema })),
});
