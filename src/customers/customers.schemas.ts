import { z } from 'zod';
import { cursorQuerySchema, paginationSchema, timestampSchema } from '../http/schemas';

/** Any string: a malformed id is answered like an unknown one (404), never as a validation error. */
export const customerParamsSchema = z.object({ id: z.string() });

export const customerListQuerySchema = cursorQuerySchema;

const nameMessage = 'name must be 1 to 100 characters';
export const renameCustomerBodySchema = z.object({
  name: z.string({ error: nameMessage }).trim().min(1, { error: nameMessage }).max(100, { error: nameMessage }),
});

const ninMessage = 'nin must be exactly 11 digits';
export const kycSubmissionBodySchema = z.object({
  nin: z.string({ error: ninMessage }).regex(/^\d{11}$/, { error: ninMessage }),
});

const kycStatusSchema = z.enum(['none', 'pending_review', 'approved', 'rejected']);
const kycTierSchema = z.union([z.literal(1), z.literal(2), z.literal(3)]);
const last4Schema = z
  .string()
  .regex(/^\d{4}$/)
  .nullable();

export const customerSchema = z.object({
  ID: z.uuid(),
  TenantID: z.uuid(),
  ExternalRef: z.string(),
  Name: z.string(),
  BVNLast4: last4Schema,
  NINLast4: last4Schema,
  KYCTier: kycTierSchema,
  KYCStatus: kycStatusSchema,
  Status: z.enum(['active', 'suspended']),
  CreatedAt: timestampSchema,
  UpdatedAt: timestampSchema,
});
export type CustomerView = z.infer<typeof customerSchema>;

export const customerListResponseSchema = z.object({
  customers: z.array(customerSchema),
  pagination: paginationSchema,
});

export const kycSubmissionResponseSchema = z.object({
  ID: z.uuid(),
  KYCTier: kycTierSchema,
  KYCStatus: kycStatusSchema,
  NINLast4: last4Schema,
});

/** The operator's queue: a Customer plus why it awaits a decision. */
export const kycReviewsResponseSchema = z.object({
  reviews: z.array(customerSchema.extend({ KYCReviewReason: z.string().nullable() })),
  hasMore: z.boolean(),
});

export const TIER3_EVIDENCE_KINDS = ['address_verification', 'utility_bill', 'bank_reference', 'in_person_verification', 'other'] as const;

export const tier3BodySchema = z.object({
  evidenceKind: z.enum(TIER3_EVIDENCE_KINDS, { error: `evidenceKind must be one of ${TIER3_EVIDENCE_KINDS.join(', ')}` }),
  evidenceReference: z
    .string({ error: 'evidenceReference is required' })
    .trim()
    .min(1, 'evidenceReference is required')
    .max(200, 'evidenceReference must be at most 200 characters'),
});
