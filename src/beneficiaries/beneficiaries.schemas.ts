import { z } from 'zod';
import { metadataFilterSchema, metadataPatchSchema, metadataSchema, metadataViewSchema } from '../http/metadata';
import { cursorQuerySchema, pageLimitSchema, paginationSchema, timestampSchema } from '../http/schemas';

/** A Nigerian bank account as a payout names it: the settlements' requests use the same two fields. */
export const accountNumberSchema = z
  .string({ error: 'accountNumber must be exactly 10 digits' })
  .regex(/^\d{10}$/, { error: 'accountNumber must be exactly 10 digits' });
export const bankCodeSchema = z.string({ error: 'invalid bank code' }).regex(/^\d{3,6}$/, { error: 'invalid bank code' });

export const createBeneficiaryBodySchema = z.object({
  bankCode: bankCodeSchema,
  accountNumber: accountNumberSchema,
  nickname: z
    .string({ error: 'nickname must be a string' })
    .trim()
    .min(1, { error: 'nickname must not be empty' })
    .max(100, { error: 'nickname must be at most 100 characters' })
    .optional()
    .describe('Your own name for the beneficiary; on a destination already saved, replaces its nickname (omit it to keep that one)'),
  metadata: metadataSchema
    .optional()
    .describe("The tenant's own data on the beneficiary; on a destination already saved, replaces its metadata (omit it to keep that one)"),
});

/** Any string: an id that is not a beneficiary's (malformed ones too) is 404 `beneficiary not found`. */
export const beneficiaryParamsSchema = z.object({ id: z.string() });

export const beneficiaryListQuerySchema = cursorQuerySchema.extend({
  limit: pageLimitSchema,
  metadata: metadataFilterSchema,
});

export const beneficiaryMetadataBodySchema = z.object({ metadata: metadataPatchSchema });

export const beneficiarySchema = z.object({
  id: z.uuid(),
  bankCode: z.string(),
  accountNumber: z.string(),
  accountName: z.string().describe("The provider's name for the account when it was last checked"),
  nickname: z.string().nullable(),
  metadata: metadataViewSchema,
  nameCheckedAt: timestampSchema.describe(
    'When the provider last gave this name; a payout re-checks a name older than BENEFICIARY_NAME_MAX_AGE',
  ),
  createdAt: timestampSchema,
});

export const beneficiaryListSchema = z.object({ beneficiaries: z.array(beneficiarySchema), pagination: paginationSchema });
