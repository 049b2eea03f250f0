import { z } from 'zod';
import { moneySchema, nairaAmountSchema, timestampSchema } from '../http/schemas';
import { DEFAULT_APPROVAL_EXPIRY_SECONDS } from '../policies/payout-approval/payout-approval';

const batchItemsMessage = 'batchItemsAtOrAbove must be a whole number of items from 1 to 5000, or null';
const expiryMessage = 'expiresAfterSeconds must be a whole number of seconds from 1 to 604800 (7 days)';

export const putApprovalPolicyBodySchema = z.object({
  payoutAtOrAbove: nairaAmountSchema('payoutAtOrAbove must be a positive amount with at most two decimals, or null')
    .nullable()
    .default(null),
  newDestination: z.boolean({ error: 'newDestination must be true or false' }).default(false),
  expiresAfterSeconds: z
    .number({ error: expiryMessage })
    .int({ error: expiryMessage })
    .min(1, { error: expiryMessage })
    .max(604_800, { error: expiryMessage })
    .default(DEFAULT_APPROVAL_EXPIRY_SECONDS),
  transferAbove: nairaAmountSchema('transferAbove must be a positive amount with at most two decimals, or null').nullable().default(null),
  sweeps: z.boolean({ error: 'sweeps must be true or false' }).default(false),
  batchTotalAtOrAbove: nairaAmountSchema('batchTotalAtOrAbove must be a positive amount with at most two decimals, or null')
    .nullable()
    .default(null),
  batchItemsAtOrAbove: z
    .number({ error: batchItemsMessage })
    .int({ error: batchItemsMessage })
    .min(1, { error: batchItemsMessage })
    .max(5000, { error: batchItemsMessage })
    .nullable()
    .default(null),
});
export type PutApprovalPolicyBody = z.output<typeof putApprovalPolicyBodySchema>;

export const approvalPolicySchema = z.object({
  /** False: no policy, every payout runs at once. */
  enabled: z.boolean(),
  payoutAtOrAbove: moneySchema.nullable(),
  newDestination: z.boolean(),
  expiresAfterSeconds: z.number().int(),
  /** Transfers between the tenant's accounts of more than this wait (null: none). */
  transferAbove: moneySchema.nullable(),
  /** Every payout a balance sweep makes waits. */
  sweeps: z.boolean(),
  /** Settlement batches paying at least this much in all wait, as a whole (null: no total). */
  batchTotalAtOrAbove: moneySchema.nullable(),
  /** Settlement batches of at least this many items wait, as a whole (null: no count). */
  batchItemsAtOrAbove: z.number().int().nullable(),
  updatedAt: timestampSchema.nullable(),
});
