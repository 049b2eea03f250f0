import { z } from 'zod';
import { virtualAccountSchema } from './accounts.schemas';
import { moneySchema, pageLimitSchema, paginationSchema, timestampSchema } from '../http/schemas';

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
  pagination: paginationSchema,
});
