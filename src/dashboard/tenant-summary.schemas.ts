import { z } from 'zod';
import { moneySchema, timestampSchema } from '../http/schemas';

export const tenantSummarySchema = z.object({
  asOf: timestampSchema,
  timeZone: z.string(),
  balances: z.object({
    accounts: z.number().int(),
    ledgerBalance: moneySchema,
    availableBalance: moneySchema,
    pendingCredits: moneySchema,
  }),
  flows: z.object({
    today: z.object({ day: z.string(), inflow: moneySchema, outflow: moneySchema }),
    last30Days: z.object({ inflow: moneySchema, outflow: moneySchema }),
    days: z.array(z.object({ day: z.string(), inflow: moneySchema, outflow: moneySchema })),
  }),
  attention: z.object({
    kycReviews: z.number().int(),
    misdirectedPayments: z.number().int(),
    deadLetters: z.number().int(),
    failedSettlements: z.number().int(),
    accountsInDeficit: z.number().int(),
    /** Open reconciliation findings (GET /auth/reconciliation/exceptions?status=open lists them). */
    reconciliationExceptions: z.number().int(),
  }),
});
