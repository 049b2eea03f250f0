export { LedgerClient, type IdempotencyOptions, type LedgerClientOptions } from './client';
export type { RetryOptions } from './transport';
export {
  LedgerError,
  LedgerApiError,
  LedgerValidationError,
  LedgerAuthenticationError,
  LedgerForbiddenError,
  LedgerNotFoundError,
  LedgerConflictError,
  LedgerRateLimitError,
  LedgerConnectionError,
  type ErrorBody,
  type HeldFunds,
} from './errors';
export type * from './api-types';
export { awaitsApproval, endedUnapproved } from './approvals';
export {
  isPaymentReceived,
  type EventEnvelope,
  type KnownEventType,
  type LedgerEvent,
  type PaymentReceivedEvent,
  type WebhookEvent,
} from './events';
export { verifyWebhook, WebhookVerificationError, type VerifyOptions } from './webhook-verification';
export type { paths, operations, components, webhooks } from './generated/openapi';
