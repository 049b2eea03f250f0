import { z } from 'zod';
import { freezeStateSchema, reservedSchema, virtualAccountSchema } from './accounts.schemas';
import { moneySchema, pageLimitSchema, paginationSchema, timestampSchema } from '../http/schemas';
import { MISMATCH_ACTIONS, VARIANCES } from '../policies/dynamic-account-amount/amount-policy';

export const ledgerEntrySchema = z.object({
  ID: z.uuid(),
  Direction: z.enum(['credit', 'debit']),
  Amount: moneySchema,
  Fee: moneySchema,
  Currency: z.literal('NGN'),
  Status: z.enum(['provisional', 'confirmed', 'reversed']),
  Narration: z.string(),
  ProviderTxnRef: z.string(),
  TransactionGroupId: z.uuid(),
  Kind: z.enum(['payment', 'settlement', 'reversal', 'adjustment', 'transfer']),
  ReversesEntryID: z.uuid().nullable(),
  CreatedAt: timestampSchema,
});
export type LedgerEntryView = z.infer<typeof ledgerEntrySchema>;

/** A statement line's entry: on a transfer's line only, the account on the transfer's other side. */
export const statementEntrySchema = ledgerEntrySchema.extend({
  CounterpartAccountRef: z
    .string()
    .optional()
    .describe("On a transfer's line only: the other account of the transfer (the one paid, or the one that paid)"),
  ExpectedAmount: moneySchema
    .nullable()
    .optional()
    .describe("On a dynamic account's payment line only: the account's expected amount (null when it has none)"),
  AmountReceived: moneySchema
    .optional()
    .describe("On a dynamic account's payment line only: the payment's gross amount, what the payer sent"),
  Variance: z
    .enum(VARIANCES)
    .optional()
    .describe("On a dynamic account's payment line only: the gross amount against the expected amount, or after_expiry"),
  MismatchAction: z
    .enum(MISMATCH_ACTIONS)
    .optional()
    .describe(
      "On a dynamic account's payment line only: none (the policy accepts it), flagged (credited), or return (held, returned to the payer)",
    ),
});
export type StatementEntryView = z.infer<typeof statementEntrySchema>;

export const statementQuerySchema = z.object({
  after: z.string().max(100).optional(),
  limit: pageLimitSchema,
  from: z.iso.datetime({ offset: true, error: 'from must be an ISO 8601 timestamp' }).optional(),
  to: z.iso.datetime({ offset: true, error: 'to must be an ISO 8601 timestamp' }).optional(),
});

export const statementResponseSchema = z.object({
  virtualAccount: virtualAccountSchema,
  lines: z.array(z.object({ entry: statementEntrySchema, runningBalance: moneySchema })),
  openingBalance: moneySchema,
  totalCredits: moneySchema,
  totalDebits: moneySchema,
  closingBalance: moneySchema,
  /** The account's money set aside now, by kind (a lien, a credit held by a freeze, …), and its freeze. */
  reserved: reservedSchema,
  freeze: freezeStateSchema,
  pagination: paginationSchema,
});
