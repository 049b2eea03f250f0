import { z } from 'zod';
import { moneySchema, nairaAmountSchema, timestampSchema } from '../http/schemas';
import { DEFAULT_APPROVAL_EXPIRY_SECONDS } from '../policies/payout-approval/payout-approval';

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
  updatedAt: timestampSchema.nullable(),
});
