import { z } from 'zod';
import { cursorQuerySchema, moneySchema, paginationSchema, timestampSchema } from '../http/schemas';

export const misdirectedListQuerySchema = cursorQuerySchema;

/** Any string: a malformed id is answered like an unknown one (404). */
export const misdirectedParamsSchema = z.object({ id: z.string() });

export const assignBodySchema = z.object({ accountRef: z.string().trim().min(1).max(100) });

/** Amounts are null when the provider sent something that was not a naira amount. */
export const misdirectedPaymentSchema = z.object({
  ID: z.uuid(),
  RequestID: z.string().nullable(),
  AliasAccountRef: z.string().nullable(),
  TransactionID: z.string().nullable(),
  SenderName: z.string().nullable(),
  Narration: z.string().nullable(),
  GrossAmount: moneySchema.nullable(),
  Fee: moneySchema.nullable(),
  ReceivedAt: timestampSchema,
  AssignedAccountRef: z.string().nullable(),
  AssignedEntryID: z.uuid().nullable(),
  AssignedAt: timestampSchema.nullable(),
});
export type MisdirectedPaymentView = z.infer<typeof misdirectedPaymentSchema>;

export const misdirectedListResponseSchema = z.object({
  misdirectedPayments: z.array(misdirectedPaymentSchema),
  pagination: paginationSchema,
});

export const assignResponseSchema = z.object({
  ID: z.uuid(),
  EntryID: z.uuid(),
  AccountRef: z.string(),
});
