import { z } from 'zod';
import { moneySchema, nairaAmountSchema, timestampSchema } from '../http/schemas';
import { parseNairaInput } from '../money';

const dailyAtMessage = 'schedule.dailyAt must be a time of day as HH:MM, 00:00 to 23:59 (Africa/Lagos)';
const keepMessage = 'keep must be an amount of zero or more with at most two decimals';

const scheduleSchema = z
  .object(
    {
      dailyAt: z
        .string({ error: dailyAtMessage })
        .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: dailyAtMessage })
        .optional(),
      whenAbove: nairaAmountSchema('schedule.whenAbove must be a positive amount with at most two decimals').optional(),
    },
    { error: 'schedule must be an object: {"dailyAt": "HH:MM"} or {"whenAbove": "<amount>"}' },
  )
  .refine((schedule) => (schedule.dailyAt === undefined) !== (schedule.whenAbove === undefined), {
    error: 'schedule must have exactly one of dailyAt ("HH:MM", Africa/Lagos) or whenAbove (an amount)',
  });

export const putBalanceSweepBodySchema = z.object({
  beneficiaryId: z.string({ error: 'beneficiaryId is required' }).max(100),
  schedule: scheduleSchema,
  keep: z
    .string({ error: keepMessage })
    .regex(/^\d{1,12}(\.\d{1,2})?$/, { error: keepMessage })
    .transform((text) => parseNairaInput(text) ?? 0n)
    .optional(),
});
export type PutBalanceSweepBody = z.output<typeof putBalanceSweepBodySchema>;

export const balanceSweepRunSchema = z.object({
  period: z.string(),
  outcome: z.enum(['settled', 'nothing_to_move', 'paused', 'refused']),
  reason: z.string().nullable(),
  merchantTxRef: z.string().nullable(),
  amount: moneySchema.nullable(),
  at: timestampSchema,
});

export const balanceSweepSchema = z.object({
  accountRef: z.string(),
  beneficiaryId: z.string(),
  schedule: z.union([z.object({ dailyAt: z.string() }), z.object({ whenAbove: moneySchema })]),
  keep: moneySchema,
  timeZone: z.literal('Africa/Lagos'),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  /** The most recent runs, newest first. */
  runs: z.array(balanceSweepRunSchema),
});
export type BalanceSweepView = z.infer<typeof balanceSweepSchema>;
