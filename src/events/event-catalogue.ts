import { z } from 'zod';
import { moneySchema, timestampSchema } from '../http/schemas';
import { formatKobo, type Kobo } from '../money';

/**
 * Every event type the service sends. `payment.received` also goes to an account's callbackUrl, as the
 * spec's bare body; every type goes to the tenant's subscribed webhook endpoints inside the envelope below
 * (id, type, creation time, subject and the subject's sequence number). A new event type is added here
 * with its data schema, and its producer records it through tenant-events in the transaction of its change.
 */

/** SPEC.md, Outbound event: field order as the spec lists it; serialised once, sent byte-identical on every retry. */
const paymentReceivedData = z.object({
  eventType: z.literal('payment.received'),
  transactionGroupId: z.uuid(),
  accountRef: z.string(),
  amount: moneySchema,
  gross_amount: moneySchema,
  provider_fee: moneySchema,
  currency: z.literal('NGN'),
  senderName: z.string(),
  narration: z.string(),
  status: z.literal('provisional'),
});

const paymentConfirmedData = z.object({
  transactionGroupId: z.uuid(),
  accountRef: z.string(),
  amount: moneySchema,
  currency: z.literal('NGN'),
});

const paymentReversedData = z.object({
  transactionGroupId: z.uuid(),
  accountRef: z.string(),
  amount: moneySchema,
  currency: z.literal('NGN'),
  reason: z.string().nullable(),
});

/** A reversed credit restored, or a confirmed one compensated: the amount given back or taken back, and why. */
const paymentCorrectedData = z.object({
  transactionGroupId: z.uuid(),
  accountRef: z.string(),
  amount: moneySchema,
  currency: z.literal('NGN'),
  reason: z.string(),
});

const settlementData = z.object({
  merchantTxRef: z.string(),
  accountRef: z.string(),
  amount: moneySchema,
  currency: z.literal('NGN'),
  status: z.enum(['success', 'failed', 'refunded']),
  reason: z.string().nullable(),
});

const kycData = z.object({
  customerId: z.uuid(),
  externalRef: z.string(),
  tier: z.string().nullable(),
  reason: z.string().nullable(),
});

const kycLimitExceededData = z.object({
  transactionGroupId: z.uuid(),
  accountRef: z.string(),
  amount: moneySchema,
  heldAmount: moneySchema,
  currency: z.literal('NGN'),
  tier: z.number().int(),
  limit: z.enum(['single_credit', 'balance']),
  limitAmount: moneySchema,
});

const endpointDisabledData = z.object({
  endpointId: z.uuid(),
  url: z.string(),
  failingSince: timestampSchema,
  reason: z.string(),
});

/** Each type's `data`, and what the event's subject (the thing its sequence numbers count) is. */
export const EVENT_CATALOGUE = {
  'payment.received': { data: paymentReceivedData, subject: 'transactionGroupId', description: 'A payment was credited provisionally to an account' },
  'payment.confirmed': {
    data: paymentConfirmedData,
    subject: 'transactionGroupId',
    description: 'A provisional credit was confirmed: the provider shows it paid, and it counts towards the available balance',
  },
  'payment.reversed': { data: paymentReversedData, subject: 'transactionGroupId', description: 'A provisional credit was reversed (the provider does not show it paid)' },
  'payment.restored': {
    data: paymentCorrectedData,
    subject: 'transactionGroupId',
    description: 'A reversed credit was restored by reconciliation: the provider showed the payment paid after its confirmation window (a confirmed credit of the amount reversed)',
  },
  'payment.compensated': {
    data: paymentCorrectedData,
    subject: 'transactionGroupId',
    description: 'A confirmed credit was taken back by a compensating debit: the provider reports the payment failed or refunded (money already paid out leaves the account in deficit)',
  },
  'settlement.succeeded': { data: settlementData, subject: 'merchantTxRef', description: 'A settlement was paid out' },
  'settlement.failed': { data: settlementData, subject: 'merchantTxRef', description: 'A settlement failed; its debit was returned to the account' },
  'settlement.refunded': { data: settlementData, subject: 'merchantTxRef', description: 'A settlement was refunded by the bank; its debit was returned to the account' },
  'kyc.approved': { data: kycData, subject: 'customerId', description: "A customer's KYC was approved: the identity check (tier 2), or an operator recorded tier 3 with its evidence" },
  'kyc.rejected': { data: kycData, subject: 'customerId', description: "A customer's identity check was rejected" },
  'kyc.limit_exceeded': {
    data: kycLimitExceededData,
    subject: 'transactionGroupId',
    description: "Part of a payment is held: it went over the customer's KYC tier limits (the payment is credited in full; the held part cannot be paid out until released)",
  },
  'webhook_endpoint.disabled': { data: endpointDisabledData, subject: 'endpointId', description: 'One of the tenant’s endpoints failed every delivery for too long and was disabled' },
} as const;

export type EventType = keyof typeof EVENT_CATALOGUE;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as [EventType, ...EventType[]];
export type EventData<T extends EventType> = z.output<(typeof EVENT_CATALOGUE)[T]['data']>;

/** The envelope an endpoint receives: `sequence` counts the events of one subject, so a late older one can be dropped. */
export function eventEnvelopeSchema<T extends EventType>(type: T) {
  return z.object({
    id: z.uuid(),
    type: z.literal(type),
    createdAt: timestampSchema,
    subject: z.string(),
    sequence: z.number().int().positive(),
    data: EVENT_CATALOGUE[type].data,
  });
}

/** The OpenAPI document's `webhooks`: one envelope schema per event type. */
export function eventWebhookSchemas(): Record<string, { description: string; schema: z.ZodType }> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, { description: EVENT_CATALOGUE[type].description, schema: eventEnvelopeSchema(type) }]));
}

/** The events of an account's callbackUrl: the spec's `payment.received` only. */
export const OUTBOUND_EVENT_TYPES = ['payment.received'] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

type PaymentReceivedEvent = z.output<typeof paymentReceivedData>;

export function paymentReceivedBody(input: { transactionGroupId: string; accountRef: string; gross: Kobo; fee: Kobo; senderName: string; narration: string }): string {
  const event: PaymentReceivedEvent = {
    eventType: 'payment.received',
    transactionGroupId: input.transactionGroupId,
    accountRef: input.accountRef,
    amount: formatKobo(input.gross - input.fee),
    gross_amount: formatKobo(input.gross),
    provider_fee: formatKobo(input.fee),
    currency: 'NGN',
    senderName: input.senderName,
    narration: input.narration,
    status: 'provisional',
  };
  return JSON.stringify(event);
}

/** A kobo amount (a non-negative bigint SQL expression) as the two-decimal naira string of moneySchema. */
const naira = (kobo: string) => `(${kobo} / 100)::text || '.' || lpad((${kobo} % 100)::text, 2, '0')`;

/** payment.confirmed's data, built in SQL inside the ledger's confirmation statement; the arguments are SQL expressions. */
export function paymentConfirmedDataSql(transactionGroupId: string, accountRef: string, amount: string): string {
  return `json_build_object('transactionGroupId', ${transactionGroupId}, 'accountRef', ${accountRef}, 'amount', ${naira(amount)}, 'currency', 'NGN')`;
}

/**
 * kyc.limit_exceeded's data, built in SQL inside the statement or transaction that wrote the hold: `hold`
 * names a row with the columns of a ledger hold (amount held, tier, limit_kind, limit_amount) and
 * credit_amount; `accountRef` and `transactionGroupId` are SQL expressions. json (not jsonb) keeps the
 * field order of the schema above.
 */
export function kycLimitExceededDataSql(hold: string, accountRef: string, transactionGroupId: string): string {
  return `json_build_object(
      'transactionGroupId', ${transactionGroupId},
      'accountRef', ${accountRef},
      'amount', ${naira(`${hold}.credit_amount`)},
      'heldAmount', ${naira(`${hold}.amount`)},
      'currency', 'NGN',
      'tier', ${hold}.tier,
      'limit', ${hold}.limit_kind,
      'limitAmount', ${naira(`${hold}.limit_amount`)})`;
}
