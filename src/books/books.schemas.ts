import { z } from 'zod';
import { atQuerySchema, cursorQuerySchema, moneySchema, pageLimitSchema, paginationSchema, timestampSchema } from '../http/schemas';
import { SYSTEM_ACCOUNTS } from '../ledger/ledger.types';

export const booksBalancesResponseSchema = z.object({
  accounts: z.array(
    z.object({
      code: z.enum([...SYSTEM_ACCOUNTS, 'customers']),
      name: z.string(),
      type: z.enum(['system', 'customers']),
      balance: moneySchema.describe(
        'Signed: customer accounts holding money are positive; money the provider holds for the tenant is a negative clearing balance',
      ),
    }),
  ),
  total: moneySchema.describe('The sum of the balances: always "0.00", every transaction being balanced'),
});

export const ledgerBalancesQuerySchema = cursorQuerySchema.extend({ limit: pageLimitSchema }).extend(atQuerySchema.shape);

/** The books, and a page of the customer accounts they add up in the `customers` line. */
export const ledgerBalancesResponseSchema = booksBalancesResponseSchema.extend({
  asOf: timestampSchema.optional().describe('With `at` only: the instant the balances stood at'),
  customerAccounts: z
    .array(
      z.object({
        accountRef: z.string(),
        ledgerBalance: moneySchema.describe("The account's ledger balance (with `at`, its running balance then)"),
      }),
    )
    .describe('A page of the customer accounts, oldest first: together, over every page, they are the `customers` line'),
  pagination: paginationSchema,
});

export const journalQuerySchema = cursorQuerySchema.extend({
  limit: pageLimitSchema,
});

/** The dashboard's journal can also show the one transaction a statement line links to. */
export const dashboardJournalQuerySchema = journalQuerySchema.extend({
  transaction: z.uuid({ error: 'transaction must be a transaction id' }).optional(),
});

const journalPostingSchema = z.object({
  account: z.enum([...SYSTEM_ACCOUNTS, 'customer']),
  accountRef: z.string().nullable().describe("The customer account's reference; null on a system account"),
  amount: moneySchema.describe("Signed: + credit, - debit; a transaction's postings sum to zero"),
  entryId: z.uuid().nullable().describe("The customer entry, as the account's statement shows it; null on a system account"),
  status: z.enum(['provisional', 'confirmed', 'reversed']).nullable().describe("The customer entry's status; null on a system account"),
});

export const journalTransactionSchema = z.object({
  id: z.uuid(),
  kind: z.enum(['payment', 'settlement', 'reversal', 'adjustment', 'transfer', 'payout', 'payout_fee']),
  reference: z
    .string()
    .nullable()
    .describe("The provider's transaction reference of a payment, a settlement's merchantTxRef, or a transfer's id"),
  createdAt: timestampSchema,
  postings: z.array(journalPostingSchema),
});

export const journalResponseSchema = z.object({
  transactions: z.array(journalTransactionSchema),
  pagination: paginationSchema,
});
