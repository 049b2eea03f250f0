import { formatKobo, type Kobo } from '../money';

/**
 * Every event type the service sends to a tenant's callbackUrl, each with its body builder below. A new
 * event type is added here, and its producer enqueues it through outbound-events.
 */
export const OUTBOUND_EVENT_TYPES = ['payment.received', 'kyc.limit_exceeded'] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

/** SPEC.md, Outbound event: field order as the spec lists it; serialised once, sent byte-identical on every retry. */
interface PaymentReceivedEvent {
  eventType: 'payment.received';
  transactionGroupId: string;
  accountRef: string;
  amount: string;
  gross_amount: string;
  provider_fee: string;
  currency: 'NGN';
  senderName: string;
  narration: string;
  status: 'provisional';
}

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

/**
 * kyc.limit_exceeded: part of a credit is held because it went over the customer's KYC limits (the
 * payment.received for it is sent as always). Built in SQL, inside the statement that posts the credit and
 * its hold: `hold` names a row with the columns of the ledger's posting_held (amount and held in kobo,
 * tier, limit_kind, limit_amount) and `accountRef`, `transactionGroupId` are SQL expressions. json (not
 * jsonb) keeps the field order; the text is stored once and sent byte-identical on every retry.
 */
export function kycLimitExceededBodySql(hold: string, accountRef: string, transactionGroupId: string): string {
  const naira = (kobo: string) => `(${kobo} / 100)::text || '.' || lpad((${kobo} % 100)::text, 2, '0')`;
  return `json_build_object(
      'eventType', 'kyc.limit_exceeded',
      'transactionGroupId', ${transactionGroupId},
      'accountRef', ${accountRef},
      'amount', ${naira(`${hold}.credit_amount`)},
      'heldAmount', ${naira(`${hold}.amount`)},
      'currency', 'NGN',
      'tier', ${hold}.tier,
      'limit', ${hold}.limit_kind,
      'limitAmount', ${naira(`${hold}.limit_amount`)})::text`;
}
