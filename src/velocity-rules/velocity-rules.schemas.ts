import { z } from 'zod';
import { moneySchema, nairaAmountSchema, timestampSchema } from '../http/schemas';
import {
  SUBJECT_ACTIONS,
  SUBJECT_SCOPES,
  VELOCITY_ACTIONS,
  VELOCITY_MEASURES,
  VELOCITY_SCOPES,
  VELOCITY_SUBJECTS,
} from '../policies/velocity/velocity-rules';

/** The longest window a rule may look back over: 30 days. */
export const MAX_WINDOW_SECONDS = 30 * 24 * 60 * 60;

const windowMessage = `windowSeconds must be a whole number of seconds from 1 to ${MAX_WINDOW_SECONDS} (30 days)`;
const maxCountMessage = 'maxCount must be a whole number from 1 to 1000000';
const messageMessage = 'message must be 1 to 200 characters';

const quoted = (names: readonly string[]): string => names.map((name) => `"${name}"`).join(names.length === 2 ? ' or ' : ', ');

/**
 * A rule as the tenant writes it: a count rule names `maxCount`, an amount rule `maxAmount`; a refusing rule names
 * the `message` its refusal gives, a reviewing rule none (the payout waits for approval instead). A credit rule holds
 * the credit past it (`hold`, with the `message` that says why), over an account's or a customer's credits: a
 * payment has no destination of the tenant's.
 */
export const velocityRuleBodySchema = z
  .object({
    subject: z.enum(VELOCITY_SUBJECTS, { error: 'subject must be "payouts" or "credits"' }),
    measure: z.enum(VELOCITY_MEASURES, { error: 'measure must be "count" or "amount"' }),
    scope: z.enum(VELOCITY_SCOPES, { error: 'scope must be "account", "customer" or "destination"' }),
    windowSeconds: z
      .number({ error: windowMessage })
      .int({ error: windowMessage })
      .min(1, { error: windowMessage })
      .max(MAX_WINDOW_SECONDS, { error: windowMessage }),
    maxCount: z
      .number({ error: maxCountMessage })
      .int({ error: maxCountMessage })
      .min(1, { error: maxCountMessage })
      .max(1_000_000, { error: maxCountMessage })
      .optional(),
    maxAmount: nairaAmountSchema('maxAmount must be a positive amount with at most two decimals').optional(),
    action: z.enum(VELOCITY_ACTIONS, { error: 'action must be "refuse", "review" or "hold"' }),
    message: z.string({ error: messageMessage }).trim().min(1, { error: messageMessage }).max(200, { error: messageMessage }).optional(),
  })
  .superRefine((rule, ctx) => {
    if (rule.measure === 'count' && (rule.maxCount === undefined || rule.maxAmount !== undefined))
      ctx.addIssue({ code: 'custom', path: ['maxCount'], message: 'a count rule names maxCount (and no maxAmount)' });
    if (rule.measure === 'amount' && (rule.maxAmount === undefined || rule.maxCount !== undefined))
      ctx.addIssue({ code: 'custom', path: ['maxAmount'], message: 'an amount rule names maxAmount (and no maxCount)' });
    const actions: readonly string[] = SUBJECT_ACTIONS[rule.subject];
    if (!actions.includes(rule.action))
      ctx.addIssue({
        code: 'custom',
        path: ['action'],
        message:
          rule.subject === 'credits'
            ? 'a credit rule\'s action must be "hold": a payment\'s money has arrived, so a credit past the rule lands held'
            : `a payout rule's action must be ${quoted(actions)}`,
      });
    const scopes: readonly string[] = SUBJECT_SCOPES[rule.subject];
    if (!scopes.includes(rule.scope))
      ctx.addIssue({
        code: 'custom',
        path: ['scope'],
        message: `a ${rule.subject === 'credits' ? 'credit' : 'payout'} rule's scope must be ${quoted(scopes)}`,
      });
    if (rule.action === 'refuse' && rule.message === undefined)
      ctx.addIssue({ code: 'custom', path: ['message'], message: 'a refusing rule names the message its refusal gives' });
    if (rule.action === 'hold' && rule.message === undefined)
      ctx.addIssue({ code: 'custom', path: ['message'], message: 'a holding rule names the message that says why the credit is held' });
    if (rule.action === 'review' && rule.message !== undefined)
      ctx.addIssue({ code: 'custom', path: ['message'], message: 'a reviewing rule has no message: the payout waits for approval' });
  });
export type VelocityRuleBody = z.output<typeof velocityRuleBodySchema>;

export const velocityRuleParamsSchema = z.object({ id: z.string().max(100) });

export const velocityRuleSchema = z.object({
  id: z.uuid(),
  subject: z.enum(VELOCITY_SUBJECTS),
  measure: z.enum(VELOCITY_MEASURES),
  scope: z.enum(VELOCITY_SCOPES),
  windowSeconds: z.number().int(),
  maxCount: z.number().int().nullable(),
  maxAmount: moneySchema.nullable(),
  action: z.enum(VELOCITY_ACTIONS),
  message: z.string().nullable(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});

export const velocityRuleListSchema = z.object({ data: z.array(velocityRuleSchema) });
