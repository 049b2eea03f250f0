import { z } from 'zod';
import { auditEntrySchema } from '../audit/audit.schemas';
import { customerSchema } from '../customers/customers.schemas';
import { metadataFilterSchema } from '../http/metadata';
import { moneySchema, paginationSchema } from '../http/schemas';
import { statementEntrySchema, statementQuerySchema, statementResponseSchema } from './statement.schemas';
import { freezeStateSchema, reservedSchema, virtualAccountSchema } from './accounts.schemas';

export const accountSearchQuerySchema = z.object({
  q: z.string().trim().max(100).optional(),
  after: z.string().max(100).optional(),
  metadata: metadataFilterSchema,
});

const balancesSchema = z.object({
  ledgerBalance: moneySchema,
  availableBalance: moneySchema,
  pendingCredits: moneySchema,
  /** Money set aside on the account (the sum of its reservations), and the same by kind. */
  heldBalance: moneySchema,
  reserved: reservedSchema,
  /** What a settlement may take now: the ledger or the available balance (SETTLEMENT_FUNDS) less held money, 0.00 in deficit. */
  settleable: moneySchema,
  settlesFrom: z.enum(['ledger', 'available']),
  /** What a transfer to another account may take now: confirmed money less held money (whatever SETTLEMENT_FUNDS is), 0.00 in deficit. */
  transferable: moneySchema,
});

export const dashboardAccountSchema = virtualAccountSchema.extend({
  CustomerName: z.string(),
  CustomerExternalRef: z.string(),
  balances: balancesSchema,
  freeze: freezeStateSchema,
});

export const accountSearchResponseSchema = z.object({
  accounts: z.array(dashboardAccountSchema),
  pagination: paginationSchema,
});

/** The statement as the dashboard reads it: each entry also names its ledger transaction, which the Books page shows. */
export const dashboardStatementResponseSchema = statementResponseSchema.extend({
  lines: z.array(z.object({ entry: statementEntrySchema.extend({ TransactionId: z.uuid() }), runningBalance: moneySchema })),
});

export const statementExportQuerySchema = statementQuerySchema.pick({ from: true, to: true });

/** A customer's page: the customer, its accounts and the operator actions taken on it. */
export const customerDetailSchema = z.object({
  customer: customerSchema.extend({ KYCReviewReason: z.string().nullable() }),
  accounts: z.array(virtualAccountSchema),
  history: z.array(auditEntrySchema),
});
