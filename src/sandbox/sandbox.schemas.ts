import { z } from 'zod';
import { koboFromProviderNumber, parseNairaInput, type Kobo } from '../money';

/** Request schemas of the simulated provider and of its control routes. */

function toKobo(value: number | string): Kobo | null {
  return typeof value === 'number' ? koboFromProviderNumber(value) : parseNairaInput(value);
}

/** The provider's wire amounts: JSON numbers of naira with at most two decimals. */
const nairaNumber = z.number().transform((value, ctx) => {
  const kobo = koboFromProviderNumber(value);
  if (kobo === null || kobo <= 0n) {
    ctx.addIssue({ code: 'custom', message: 'must be a positive naira amount with at most two decimals' });
    return z.NEVER;
  }
  return kobo;
});

/** Control routes also take "5025.50" so tests never need a float literal for money. */
const nairaNumberOrText = (options: { allowZero: boolean }) =>
  z.union([z.number(), z.string()]).transform((value, ctx) => {
    const kobo = toKobo(value);
    if (kobo === null || kobo < 0n || (!options.allowZero && kobo === 0n)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a ${options.allowZero ? 'non-negative' : 'positive'} naira amount with at most two decimals`,
      });
      return z.NEVER;
    }
    return kobo;
  });

/** A week: long enough for "PROCESSING for days", short enough to stay a timer-free comparison. */
const MAX_SANDBOX_DELAY_MS = 7 * 24 * 60 * 60_000;

const accountNumber = z.string().regex(/^\d{10}$/, 'must be 10 digits');
const reference = z.string().trim().min(1).max(100);
const text = (max: number) => z.string().trim().min(1).max(max);

export const tokenIssueSchema = z.object({
  grant_type: z.literal('client_credentials'),
  client_id: text(200),
  client_secret: z.string().min(1),
});

export const virtualAccountSchema = z.object({
  accountRef: reference,
  accountName: text(200),
  currency: z.literal('NGN'),
  bvn: z
    .string()
    .regex(/^\d{11}$/, 'must be 11 digits')
    .optional(),
  expectedAmount: nairaNumber.nullish(),
});

export const transactionQuerySchema = z.object({ transactionRef: reference });

export const transferSchema = z.object({
  amount: nairaNumber,
  accountNumber,
  accountName: text(200),
  bankCode: text(10),
  merchantTxRef: reference,
  senderName: text(200),
  narration: z.string().max(200).optional(),
});

export const accountLookupSchema = z.object({ accountNumber, bankCode: text(10) });

export const ninCheckSchema = z.object({
  nin: z.string().regex(/^\d{11}$/, 'must be exactly 11 digits'),
  name: text(200),
});

export const simulatedPaymentSchema = z
  .object({
    accountRef: reference,
    amount: nairaNumberOrText({ allowZero: false }),
    fee: nairaNumberOrText({ allowZero: true }).optional(),
    senderName: text(200).optional(),
    senderAccountNumber: accountNumber.optional(),
    narration: z.string().max(200).default(''),
    status: z.enum(['SUCCESS', 'PAYMENT_FAILED', 'PROCESSING', 'REFUND']).default('SUCCESS'),
    deliver: z.boolean().default(true),
    /** The provider never sends this payment's webhook: a payment the service can only learn of by reconciling. */
    suppressWebhook: z.boolean().default(false),
    /** Lookups answer "not found" for this long after the payment (default SANDBOX_LOOKUP_LAG). */
    lookupLagMs: z.number().int().min(0).max(MAX_SANDBOX_DELAY_MS).optional(),
    /** Lookups show PROCESSING for this long, then `status`. */
    processingMs: z.number().int().min(0).max(MAX_SANDBOX_DELAY_MS).default(0),
    /** The first this many lookups answer "not found". */
    notFoundLookups: z.number().int().min(0).max(1_000).default(0),
  })
  .refine((payment) => payment.fee === undefined || payment.fee <= payment.amount, { message: 'fee cannot exceed amount', path: ['fee'] });

/** Many provider-known payments at once, signed but not delivered: benchmarks replay them at full speed. */
export const paymentBatchSchema = z.object({
  accountRefs: z.array(reference).min(1).max(1_000),
  count: z.number().int().min(1).max(200_000),
  amount: nairaNumberOrText({ allowZero: false }),
});

export const redeliverSchema = z.object({ requestId: reference });

export const transferReferenceParamsSchema = z.object({ merchantTxRef: reference });

export const faultSettingsSchema = z.object({
  failureRate: z.number().min(0).max(1).default(0),
  throttleRate: z.number().min(0).max(1).default(0),
  retryAfterSeconds: z.number().int().min(0).max(3_600).default(1),
  latencyMs: z.number().int().min(0).max(120_000).default(0),
  routes: z.array(z.string().startsWith('/')).default([]),
});

export const tokenTtlSchema = z.object({
  ttlMs: z
    .number()
    .int()
    .min(1)
    .max(24 * 60 * 60_000),
});

const outageSchema = z.object({
  answer: z.enum(['429', '503', 'html']),
  durationMs: z
    .number()
    .int()
    .min(0)
    .max(30 * 24 * 3_600_000),
  retryAfterSeconds: z.number().int().min(0).max(3_600).default(1),
});

const delayMs = z
  .number()
  .int()
  .min(0)
  .max(30 * 24 * 3_600_000);

/** A control-route profile: which transfers it applies to, and the behaviours it sets (docs/sandbox.md, "The provider's bad days"). */
export const transferProfileRuleSchema = z
  .object({
    match: z
      .object({
        referencePrefix: z.string().min(1).max(100).optional(),
        accountNumber: accountNumber.optional(),
      })
      .strict()
      .default({}),
    final: z.enum(['SUCCESS', 'PAYMENT_FAILED']).optional(),
    failFirstSubmissions: z.number().int().min(0).max(100).optional(),
    processingMs: delayMs.nullable().optional(),
    submitAnswer: z.enum(['normal', 'timeout', 'pending_code', 'error_after_recording']).optional(),
    duplicateReference: z.enum(['original', 'conflict', 'described']).optional(),
    falseDuplicates: z.number().int().min(0).max(1_000_000).optional(),
    lookupLagMs: delayMs.optional(),
    hiddenLookups: z.number().int().min(0).max(1_000).optional(),
    lookupAnswersFor: z.string().min(1).max(100).nullable().optional(),
    refundAfterSuccess: z.boolean().optional(),
    refundAfterFailure: z.boolean().optional(),
    refundLookupLagMs: delayMs.optional(),
    webhooks: z.enum(['normal', 'duplicated_out_of_order']).optional(),
    outage: outageSchema.nullable().optional(),
  })
  .strict();

export const accountNameParamsSchema = z.object({ accountNumber });

/** The name a bank now gives an account; null: the bank no longer has it. */
export const accountNameSchema = z.object({ accountName: text(200).nullable() });

export const settleTransferSchema = z.object({ status: z.enum(['SUCCESS', 'PAYMENT_FAILED']).default('SUCCESS') });
