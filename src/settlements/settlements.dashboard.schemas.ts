import { z } from 'zod';
import { metadataFilterSchema, metadataViewSchema } from '../http/metadata';
import { moneySchema, paginationSchema, timestampSchema } from '../http/schemas';
import { requireOneDestination, settleBodyOf, settleFields, settlementStatusSchema, settlementViewSchema } from './settlements.schemas';

export const settlementListQuerySchema = z.object({
  status: settlementStatusSchema.optional(),
  after: z.string().max(100).optional(),
  metadata: metadataFilterSchema,
});

const settlementListItemSchema = z.object({
  ID: z.uuid(),
  MerchantTxRef: z.string(),
  AccountRef: z.string(),
  Amount: moneySchema,
  BankCode: z.string(),
  AccountNumber: z.string(),
  AccountName: z.string().nullable(),
  Status: settlementStatusSchema,
  AttemptCount: z.number().int(),
  Metadata: metadataViewSchema,
  CreatedAt: timestampSchema,
  UpdatedAt: timestampSchema,
});

export const settlementListResponseSchema = z.object({
  settlements: z.array(settlementListItemSchema),
  pagination: paginationSchema,
});

export const settlementDetailSchema = z.object({
  // `transfer`: the dashboard API's field name for the settlement (docs/glossary.md).
  transfer: settlementViewSchema.extend({
    accountName: z.string().nullable(),
    narration: z.string(),
    failureReason: z.string().nullable(),
    providerTransferId: z.string().nullable(),
  }),
  attempts: z.array(
    z.object({
      attempt: z.number().int(),
      providerRef: z.string(),
      outcome: z.string(),
      providerTransferId: z.string().nullable(),
      detail: z.string().nullable(),
      startedAt: timestampSchema,
      updatedAt: timestampSchema,
    }),
  ),
  statusHistory: z.array(z.object({ status: z.string(), at: timestampSchema })),
  /** Its workflow's id, for the platform operator (the Temporal UI is theirs alone, so no link). */
  workflow: z.object({ workflowId: z.string() }),
});

const confirmedAccountName = z.string().trim().min(1, { error: 'confirm the account name from the lookup first' }).max(200);

/**
 * The page has shown the provider's name for the destination and the operator confirmed paying it: a bank
 * account with the name its lookup gave, or a saved beneficiary (the name the page showed from the list, if
 * sent, must be the name the payout pays).
 */
export const dashboardSettleBodySchema = z
  .object({ ...settleFields, confirmedAccountName: confirmedAccountName.optional() })
  .superRefine((body, ctx) => {
    requireOneDestination(body, ctx);
    if (body.beneficiaryId === undefined && body.confirmedAccountName === undefined)
      ctx.addIssue({ code: 'custom', path: ['confirmedAccountName'], message: 'confirm the account name from the lookup first' });
  })
  .transform((body) => {
    const settle = settleBodyOf(body);
    return settle.to === 'account'
      ? { ...settle, confirmedAccountName: body.confirmedAccountName ?? '' }
      : { ...settle, confirmedAccountName: body.confirmedAccountName };
  });
