import type { webhooks } from './generated/openapi';

/** SPEC.md's outbound event: the bare body an account's callbackUrl receives. */
export interface PaymentReceivedEvent {
  eventType: 'payment.received';
  transactionGroupId: string;
  accountRef: string;
  /** What the account was credited: gross_amount less provider_fee, naira with two decimals. */
  amount: string;
  gross_amount: string;
  provider_fee: string;
  currency: 'NGN';
  senderName: string;
  narration: string;
  status: 'provisional';
}

/**
 * What a subscribed webhook endpoint receives: one envelope per event. `sequence` counts the events of
 * one `subject` (a transaction group, a merchantTxRef, a customer), so an older event that arrives after
 * a newer one of the same subject can be dropped.
 */
export interface EventEnvelope<Type extends string = string, Data = Record<string, unknown>> {
  id: string;
  type: Type;
  createdAt: string;
  subject: string;
  sequence: number;
  data: Data;
}

/** The event types the service documents, used when its OpenAPI document has no `webhooks` section. */
export type KnownEventType =
  | 'payment.received'
  | 'payment.confirmed'
  | 'payment.reversed'
  | 'payment.restored'
  | 'payment.compensated'
  | 'settlement.scheduled'
  | 'settlement.cancelled'
  | 'settlement.awaiting_approval'
  | 'settlement.approved'
  | 'settlement.rejected'
  | 'settlement.expired'
  | 'settlement.succeeded'
  | 'settlement.failed'
  | 'settlement.refunded'
  | 'velocity_rule.triggered'
  | 'transfer.awaiting_approval'
  | 'transfer.approved'
  | 'transfer.rejected'
  | 'transfer.expired'
  | 'transfer.completed'
  | 'settlement_batch.awaiting_approval'
  | 'settlement_batch.approved'
  | 'settlement_batch.rejected'
  | 'settlement_batch.expired'
  | 'settlement_batch.completed'
  | 'kyc.approved'
  | 'kyc.rejected'
  | 'kyc.limit_exceeded'
  | 'webhook_endpoint.disabled';

type DocumentedEvent = {
  [Type in keyof webhooks]: webhooks[Type] extends { post: { requestBody?: { content: { 'application/json': infer Body } } } }
    ? Body
    : never;
}[keyof webhooks];

/**
 * A webhook endpoint's event: the typed envelopes of the OpenAPI document's `webhooks` section when the
 * service publishes one, otherwise an envelope per known type with its data left open.
 */
export type LedgerEvent = string extends keyof webhooks
  ? { [Type in KnownEventType]: EventEnvelope<Type> }[KnownEventType]
  : DocumentedEvent;

/** Anything `verifyWebhook` returns: the spec's callbackUrl body or an endpoint's envelope. */
export type WebhookEvent = PaymentReceivedEvent | LedgerEvent;

/** True for the spec's bare callbackUrl body (which carries `eventType`; envelopes carry `type`). */
export function isPaymentReceived(event: WebhookEvent): event is PaymentReceivedEvent {
  return (event as { eventType?: unknown }).eventType === 'payment.received';
}
