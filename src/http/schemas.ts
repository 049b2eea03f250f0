import { parseNairaInput } from '../money';
import { z } from 'zod';

export const errorBodySchema = z.object({
  error: z.string(),
  code: z.string(),
  requestId: z.string().optional(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  requiredScope: z.string().optional().describe('missing_scope: the API key scope the request needs'),
  available: z
    .string()
    .regex(/^\d+\.\d{2}$/)
    .optional()
    .describe('insufficient_funds, when held or unconfirmed money is part of why: what the account may spend now (naira)'),
  held: z
    .string()
    .regex(/^\d+\.\d{2}$/)
    .optional()
    .describe(
      'insufficient_funds, when held or unconfirmed money is part of why: what is held on the account (naira), spendable once released',
    ),
  pending: z
    .string()
    .regex(/^\d+\.\d{2}$/)
    .optional()
    .describe(
      'insufficient_funds, when unconfirmed money is part of why (a transfer between accounts, or a settlement under SETTLEMENT_FUNDS=available, spends only confirmed money): the provisional credits (naira), spendable once the provider confirms them',
    ),
  reason: z
    .string()
    .optional()
    .describe(
      'insufficient_funds, when held or unconfirmed money is part of why: its causes, joined by "; " ("held by the customer\'s KYC limits", "held to return to the payer: a dynamic account\'s mismatched payment", both joined by "and", "not yet confirmed by the provider")',
    ),
});

export const paginationSchema = z.object({
  limit: z.number().int(),
  nextCursor: z.string().nullable(),
  hasMore: z.boolean(),
});

export type Pagination = z.infer<typeof paginationSchema>;

export const cursorQuerySchema = z.object({
  after: z.string().max(100).optional(),
});

export const moneySchema = z.string().regex(/^-?\d+\.\d{2}$/);

export const timestampSchema = z.iso.datetime();

const AT_ERROR = 'at must be an RFC 3339 timestamp with a time zone, e.g. 2026-11-30T23:59:59+01:00';

/** `at`: an instant not in the future, read to the millisecond (the precision of every time the API shows). */
export const atQuerySchema = z.object({
  at: z.iso
    .datetime({ offset: true, error: AT_ERROR })
    .refine((at) => Date.parse(at) <= Date.now(), { error: 'at must not be in the future' })
    .optional()
    .describe(
      'An instant (RFC 3339): the answer as of then, counting the entries posted at or before it (to the millisecond); omitted: now',
    ),
});

/**
 * A positive decimal naira string with at most two decimals, parsed to kobo; `message` is the whole error text.
 * At most 12 digits of naira: far above any limit, and always within Postgres's bigint (kobo) and its sums.
 */
export function nairaAmountSchema(message: string) {
  return z
    .string({ error: message })
    .regex(/^\d{1,12}(\.\d{1,2})?$/, { error: message })
    .transform((text) => parseNairaInput(text) ?? 0n)
    .refine((kobo) => kobo > 0n, { error: message });
}

const PAGE_LIMIT_ERROR = 'limit must be an integer from 1 to 200';

/** A list's optional page size from the query string: 1 to 200. */
export const pageLimitSchema = z.coerce
  .number({ error: PAGE_LIMIT_ERROR })
  .int({ error: PAGE_LIMIT_ERROR })
  .min(1, { error: PAGE_LIMIT_ERROR })
  .max(200, { error: PAGE_LIMIT_ERROR })
  .optional();
