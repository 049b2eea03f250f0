import { z } from 'zod';
import { METADATA_MAX_BYTES, metadataFilterSchema, metadataSchema, metadataViewSchema } from '../http/metadata';
import { cursorQuerySchema, moneySchema, pageLimitSchema, paginationSchema, timestampSchema } from '../http/schemas';
import { BATCH_APPROVAL_REASONS } from '../policies/batch-approval/batch-approval';
import { MAX_SCHEDULE_DAYS } from '../policies/scheduled-payout/scheduled-payout';
import { scheduledForSchema } from '../settlements/settlements.schemas';

/** Most items one batch may carry. */
export const MAX_BATCH_ITEMS = 5_000;

/** Items a batch's page shows, and batches a list's page shows, when the query names no `limit`. */
export const ITEMS_PAGE_SIZE = 100;
export const BATCHES_PAGE_SIZE = 20;

/** The longest each item field may be (characters): the schema's limits, and what the body limit is sized from. */
const ITEM_FIELD_MAX = {
  reference: 100,
  accountRef: 100,
  amount: 40,
  bankCode: 20,
  accountNumber: 20,
  beneficiaryId: 100,
  narration: 200,
} as const;

/**
 * The items' metadata together, serialized as JSON (UTF-8 bytes): each item's is bounded as any record's, and the
 * batch's sum keeps the largest body the schema accepts (and so the body limit) near that of a batch without.
 */
export const BATCH_ITEMS_METADATA_MAX_BYTES = 1024 * 1024;

/** A character of a JSON string takes at most six bytes, written as a \uXXXX escape (a UTF-16 unit, as zod counts). */
const MAX_JSON_BYTES_PER_CHAR = 6;

/**
 * The largest create-batch body the schema can accept: MAX_BATCH_ITEMS items, each with every field at its
 * longest, every character escaped, plus the JSON around them; rounded up to a whole megabyte.
 */
const largestItemBytes = Object.entries(ITEM_FIELD_MAX).reduce(
  (bytes, [name, max]) => bytes + `"${name}":"",`.length + max * MAX_JSON_BYTES_PER_CHAR,
  '{},'.length,
);
/** A metadata byte (UTF-8, as bounded) is written with at most six bytes (a \uXXXX escape); each item may name the field. */
const largestMetadataBytes =
  (BATCH_ITEMS_METADATA_MAX_BYTES + METADATA_MAX_BYTES) * MAX_JSON_BYTES_PER_CHAR + MAX_BATCH_ITEMS * '"metadata":{},'.length;
const MB = 1024 * 1024;
export const CREATE_BATCH_BODY_LIMIT =
  Math.ceil((MAX_BATCH_ITEMS * largestItemBytes + largestMetadataBytes + '{"items":[],"metadata":{}}'.length) / MB) * MB;

/** Left to the validator's own messages, which name the item: "body.items[3].reference is required". */
const text = (max: number) => z.string().trim().min(1).max(max);

/**
 * One item as sent. Only its shape is checked here (a malformed item refuses the whole request); its values
 * (the amount, the bank code, the account number, the destination) are judged item by item, in order, by the
 * rules of a single settle, and an item they refuse fails alone with that settle's message.
 */
export const batchItemSchema = z.object({
  reference: text(ITEM_FIELD_MAX.reference).describe("The tenant's own reference for the item, unique in the batch"),
  accountRef: text(ITEM_FIELD_MAX.accountRef).describe('The virtual account the item pays from'),
  amount: z.string().max(ITEM_FIELD_MAX.amount).describe('Naira, e.g. "1500.00"'),
  bankCode: z.string().max(ITEM_FIELD_MAX.bankCode).optional(),
  accountNumber: z.string().max(ITEM_FIELD_MAX.accountNumber).optional(),
  beneficiaryId: z
    .string()
    .max(ITEM_FIELD_MAX.beneficiaryId)
    .optional()
    .describe('A saved beneficiary to pay instead of bankCode and accountNumber'),
  narration: z.string().max(ITEM_FIELD_MAX.narration).optional(),
  metadata: metadataSchema
    .optional()
    .describe("The tenant's own data on the item, fixed with the batch; the item's settlement carries it (its events too)"),
});
export type BatchItemInput = z.output<typeof batchItemSchema>;

/** A reference used twice refuses the request, naming it and both items. */
function uniqueReferences(items: BatchItemInput[], ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const first = seen.get(item.reference);
    if (first === undefined) seen.set(item.reference, index);
    else
      ctx.addIssue({
        code: 'custom',
        path: ['items', index, 'reference'],
        message: `duplicate reference "${item.reference}" (items[${first}] and items[${index}])`,
      });
  });
}

/** The items' metadata together beyond its bound refuses the request. */
function boundedItemsMetadata(items: BatchItemInput[], ctx: z.RefinementCtx): void {
  const encoder = new TextEncoder();
  const bytes = items.reduce((sum, item) => sum + (item.metadata ? encoder.encode(JSON.stringify(item.metadata)).length : 0), 0);
  if (bytes > BATCH_ITEMS_METADATA_MAX_BYTES)
    ctx.addIssue({
      code: 'custom',
      path: ['items'],
      message: `the items' metadata must be at most ${BATCH_ITEMS_METADATA_MAX_BYTES} bytes together serialized as JSON`,
    });
}

export const createBatchBodySchema = z
  .object({
    items: z
      .array(batchItemSchema, { error: 'items must be an array' })
      .min(1, { error: 'items must hold at least 1 item' })
      .max(MAX_BATCH_ITEMS, { error: `items must hold at most ${MAX_BATCH_ITEMS} items` }),
    scheduledFor: scheduledForSchema
      .optional()
      .describe(
        `Run the batch at this instant instead of now (RFC 3339 with an offset; in the future, at most ${MAX_SCHEDULE_DAYS} days ahead): each valid item's amount is reserved at once, and the batch can be cancelled until it starts`,
      ),
    metadata: metadataSchema.optional().describe("The tenant's own data on the batch, fixed when it is made (its events carry it)"),
  })
  .superRefine((body, ctx) => {
    uniqueReferences(body.items, ctx);
    boundedItemsMetadata(body.items, ctx);
  });
export type CreateBatchBody = z.output<typeof createBatchBodySchema>;

export const createBatchQuerySchema = z.object({
  dryRun: z
    .enum(['true', 'false'], { error: 'dryRun must be true or false' })
    .optional()
    .describe('true: judge every item now (its values, the account, the bank, the beneficiary) and create nothing'),
});

export const batchStatusSchema = z
  .enum([
    'scheduled',
    'awaiting_approval',
    'validating',
    'processing',
    'completed',
    'completed_with_failures',
    'cancelled',
    'rejected',
    'expired',
  ])
  .describe(
    "scheduled: waiting for its scheduledFor, its items' money reserved (then validating, or cancelled); awaiting_approval: held by the tenant's approval policy, its items' money reserved (then validating once approved, or rejected or expired); validating while items wait their turn, processing once none waits, then final",
  );
export const batchItemStatusSchema = z
  .enum(['queued', 'pending', 'processing', 'success', 'failed', 'refunded'])
  .describe("queued: not judged yet; then its settlement's status; failed also for an item refused before submission or cancelled");

export const batchCountsSchema = z.object({
  queued: z.number().int(),
  pending: z.number().int(),
  processing: z.number().int(),
  success: z.number().int(),
  failed: z.number().int(),
  refunded: z.number().int(),
});
export type BatchCounts = z.output<typeof batchCountsSchema>;

export const batchSummarySchema = z.object({
  id: z.uuid(),
  status: batchStatusSchema,
  counts: batchCountsSchema,
  metadata: metadataViewSchema,
  createdAt: timestampSchema,
  scheduledFor: timestampSchema.optional().describe('When a scheduled batch runs (or ran); absent on one never scheduled'),
  scheduledForLagos: z.string().optional().describe('The same instant in Africa/Lagos time (UTC+01:00)'),
});

export const batchItemViewSchema = z.object({
  reference: z.string(),
  accountRef: z.string(),
  amount: z.string().describe('Naira, two decimals (as sent when it is no amount)'),
  merchantTxRef: z.string().nullable().describe("The item's settlement, once initiated (GET /v1/transfers/{merchantTxRef})"),
  status: batchItemStatusSchema,
  failureReason: z.string().nullable(),
  metadata: metadataViewSchema,
});

export const batchSchema = batchSummarySchema.extend({
  items: z.array(batchItemViewSchema),
  pagination: paginationSchema.describe("The items' page, in request order; the cursor is the last item's reference"),
});

export const batchListResponseSchema = z.object({ batches: z.array(batchSummarySchema), pagination: paginationSchema });

export const dryRunResponseSchema = z.object({
  valid: z.number().int(),
  invalid: z.number().int(),
  items: z.array(z.object({ reference: z.string(), valid: z.boolean(), reason: z.string().nullable() })),
});

export const batchParamsSchema = z.object({ id: z.string().max(100) });

/**
 * `after`: the previous page's last item reference (a batch's items) or batch id (the list); `metadata[key]=value`: only
 * the items (or batches) carrying every pair given.
 */
export const batchPageQuerySchema = cursorQuerySchema.extend({ limit: pageLimitSchema, metadata: metadataFilterSchema });

/** What became of a held batch, as the Approvals page lists them: approved covers every status an approved batch runs through. */
export const heldBatchStatusSchema = z.enum(['awaiting_approval', 'approved', 'rejected', 'expired']);
export type HeldBatchStatus = z.output<typeof heldBatchStatusSchema>;

export const heldBatchListQuerySchema = z.object({
  status: heldBatchStatusSchema.default('awaiting_approval'),
  after: z.string().optional(),
});

export const heldBatchSchema = z.object({
  id: z.uuid(),
  status: batchStatusSchema,
  items: z.number().int().describe('How many items the batch carries'),
  total: moneySchema.describe('What it reserved: the amounts of the items the dry run passed when it was made'),
  currency: z.literal('NGN'),
  reasons: z
    .array(z.enum(BATCH_APPROVAL_REASONS))
    .describe('Why it waits: total (at or above the policy), item_count (at least the policy)'),
  maker: z.string().describe("The maker's email, or 'API key'"),
  makerUserId: z.uuid().nullable(),
  createdAt: timestampSchema,
  expiresAt: timestampSchema,
  decidedBy: z.string().nullable(),
  decidedAt: timestampSchema.nullable(),
  decisionNote: z.string().nullable(),
  flaggedCount: z
    .number()
    .int()
    .describe('How many items the dry run flagged when it was made (they reserve nothing and fail at their turn)'),
  flagged: z
    .array(z.object({ reference: z.string(), accountRef: z.string(), amount: z.string(), reason: z.string() }))
    .describe("The first 100 flagged items, in request order, with the dry run's reason"),
});

export const heldBatchListResponseSchema = z.object({ batches: z.array(heldBatchSchema), pagination: paginationSchema });
