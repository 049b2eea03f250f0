import { z } from 'zod';
import { koboFromProviderNumber } from '../../money';
import type { ProviderListedTransaction } from './spec-provider.types';

/** Wire schemas of the provider's responses. Amounts arrive as JSON numbers of naira and leave as kobo. */

export const envelopeSchema = z.object({
  code: z.union([z.string(), z.number()]).transform(String),
  description: z.string().optional(),
  data: z.unknown().optional(),
});

const naira = z.number().transform((value, ctx) => {
  const kobo = koboFromProviderNumber(value);
  if (kobo === null || kobo < 0n) {
    ctx.addIssue({ code: 'custom', message: `not a naira amount: ${value}` });
    return z.NEVER;
  }
  return kobo;
});

const optionalNaira = naira.nullish().transform((kobo) => kobo ?? null);
const optionalText = z
  .string()
  .nullish()
  .transform((text) => text ?? null);

const transactionStatus = z.enum(['SUCCESS', 'PAYMENT_FAILED', 'PROCESSING', 'REFUND']);

/** expiresAt as an ISO timestamp or epoch (seconds or milliseconds), turned into epoch milliseconds. */
const expiresAt = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = typeof value === 'number' ? (value < 1e12 ? value * 1000 : value) : Date.parse(value);
  if (!Number.isFinite(ms)) {
    ctx.addIssue({ code: 'custom', message: `unreadable expiresAt: ${String(value)}` });
    return z.NEVER;
  }
  return ms;
});

export const tokenDataSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().optional(),
  expiresAt,
});

export const virtualAccountDataSchema = z
  .object({
    accountRef: z.string(),
    accountHolderId: z.string(),
    accountName: z.string(),
    bankAccountNumber: z.string().regex(/^\d{10}$/),
    bankAccountName: z.string(),
    bankName: z.string(),
    currency: z.string(),
    expectedAmount: optionalNaira,
    expired: z.boolean(),
    createdAt: z.string(),
  })
  .transform(({ expectedAmount, ...account }) => ({ ...account, expectedAmountKobo: expectedAmount }));

export const transactionDataSchema = z
  .object({
    id: z.string(),
    status: transactionStatus,
    amount: naira,
    fee: optionalNaira,
    // A field the provider leaves out is unknown, never a mismatch: confirmation compares only what is there.
    type: optionalText,
    currency: optionalText,
    merchantTxRef: optionalText,
    aliasAccountReference: optionalText,
    timeCreated: z.string(),
  })
  .transform(({ amount, fee, ...transaction }) => ({ ...transaction, amountKobo: amount, feeKobo: fee }));

export const transferDataSchema = z
  .object({
    id: z.string(),
    status: transactionStatus,
    amount: naira,
    fee: optionalNaira,
    meta: z.object({ merchantTxRef: z.string() }),
    timeCreated: z.string(),
  })
  .transform(({ id, status, amount, fee, meta, timeCreated }) => ({
    id,
    status,
    amountKobo: amount,
    feeKobo: fee,
    merchantTxRef: meta.merchantTxRef,
    timeCreated,
  }));

export const banksDataSchema = z
  .object({ results: z.array(z.object({ bankCode: z.string(), bankName: z.string() })) })
  .transform(({ results }) => results.map((bank) => ({ code: bank.bankCode, name: bank.bankName })));

export const accountLookupDataSchema = z.object({ accountNumber: z.string(), accountName: z.string() });

/**
 * Listings write amounts as JSON numbers (the wallet listing) or as decimal text such as "100.0" (the
 * virtual-account listing); both become kobo through the same decimal conversion.
 */
const listedNaira = z.union([z.number(), z.string().regex(/^\d+(\.\d+)?$/)]);

function listedKobo(value: number | string, field: string, ctx: z.RefinementCtx): bigint {
  const kobo = koboFromProviderNumber(typeof value === 'number' ? value : Number(value));
  if (kobo !== null && kobo >= 0n) return kobo;
  ctx.addIssue({ code: 'custom', message: `not a naira amount: ${String(value)}`, path: [field] });
  return 0n;
}

function listedEntryType(text: string | null | undefined): 'CREDIT' | 'DEBIT' | null {
  const upper = text?.toUpperCase();
  return upper === 'CREDIT' || upper === 'DEBIT' ? upper : null;
}

/**
 * One row of a listing. A reconciliation run parses hundreds of thousands of these, so the fields are
 * plain checks and ONE transform converts the row (a transform per field costs zod an extra step and
 * its allocations on every field of every row), building it field by field rather than by spreading
 * the input (V8 copies a spread object the slow way).
 */
const listedTransactionSchema = z
  .object({
    id: z.string().min(1),
    status: z.string().min(1),
    amount: listedNaira,
    fixedCharge: listedNaira.nullish(),
    type: z.string().nullish(),
    entryType: z.string().nullish(),
    currency: z.string().nullish(),
    merchantTxRef: z.string().nullish(),
    recipientAccountNumber: z.string().nullish(),
    senderName: z.string().nullish(),
    narration: z.string().nullish(),
    timeCreated: z.string(),
  })
  .transform((transaction, ctx): ProviderListedTransaction => ({
    id: transaction.id,
    status: transaction.status,
    amountKobo: listedKobo(transaction.amount, 'amount', ctx),
    feeKobo:
      transaction.fixedCharge === null || transaction.fixedCharge === undefined
        ? null
        : listedKobo(transaction.fixedCharge, 'fixedCharge', ctx),
    type: transaction.type ?? '',
    entryType: listedEntryType(transaction.entryType),
    currency: transaction.currency ?? null,
    merchantTxRef: transaction.merchantTxRef ?? null,
    recipientAccountNumber: transaction.recipientAccountNumber ?? null,
    senderName: transaction.senderName ?? null,
    narration: transaction.narration ?? null,
    timeCreated: transaction.timeCreated,
  }));

/** The provider's paged listing: an empty or absent cursor means the last page. */
export const transactionListDataSchema = z
  .object({ results: z.array(listedTransactionSchema), cursor: z.string().nullish() })
  .transform(({ results, cursor }) => ({ transactions: results, nextCursor: cursor ? cursor : null }));

/** A wallet can be overdrawn: its balance is the one signed amount. */
const signedNaira = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)]).transform((value, ctx) => {
  const kobo = koboFromProviderNumber(typeof value === 'number' ? value : Number(value));
  if (kobo === null) {
    ctx.addIssue({ code: 'custom', message: `not a naira amount: ${String(value)}` });
    return z.NEVER;
  }
  return kobo;
});

export const walletBalanceDataSchema = z
  .object({ amount: signedNaira, currency: z.string() })
  .transform(({ amount, currency }) => ({ amountKobo: amount, currency }));
