import { formatKobo, type Kobo } from '../money';

/**
 * Every event type the service sends to a tenant's callbackUrl, each with its body builder below. A new
 * event type is added here, and its producer enqueues it through outbound-events.
 */
export const OUTBOUND_EVENT_TYPES = ['payment.received'] as const;
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
