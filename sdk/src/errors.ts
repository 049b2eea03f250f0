/** The service's error body: `{"error": "<message>", "code": "<snake_code>", "requestId": "…"}`. */
export interface ErrorBody {
  error: string;
  code: string;
  requestId?: string;
  details?: Array<{ path: string; message: string }>;
  /** `insufficient_funds` when held or unconfirmed money is part of why: what may be spent now, what is held or unconfirmed, and why. */
  available?: string;
  held?: string;
  pending?: string;
  reason?: string;
  /** `missing_scope`: the API key scope the request needs. */
  requiredScope?: string;
}

/** Held or unconfirmed money an `insufficient_funds` refusal names: naira strings, and why in words. */
export interface HeldFunds {
  available: string;
  held: string;
  /** Provisional credits, when money the provider has not confirmed is part of why (a transfer spends only confirmed money). */
  pending?: string;
  reason: string;
}

/** Any failure of a call: the service answered an error, or it could not be reached. */
export class LedgerError extends Error {
  /** The Idempotency-Key the request carried, so a caller can retry the same operation later. */
  readonly idempotencyKey: string | undefined;

  constructor(message: string, idempotencyKey: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.idempotencyKey = idempotencyKey;
  }
}

/** The service answered with a 4xx or 5xx: `status` and the service's own message and code. */
export class LedgerApiError extends LedgerError {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly details: ErrorBody['details'];
  /** Seconds the service asked to wait (the Retry-After header), when it said. */
  readonly retryAfterSeconds: number | undefined;
  /** For `insufficient_funds` when the account holds money: what may be spent now, what is held and why. */
  readonly heldFunds: HeldFunds | undefined;
  /** For `missing_scope` (403): the scope the API key lacks. */
  readonly requiredScope: string | undefined;

  constructor(status: number, body: ErrorBody, retryAfterSeconds: number | undefined, idempotencyKey: string | undefined) {
    super(body.error, idempotencyKey);
    this.status = status;
    this.code = body.code;
    this.requestId = body.requestId;
    this.details = body.details;
    this.retryAfterSeconds = retryAfterSeconds;
    this.requiredScope = body.requiredScope;
    this.heldFunds =
      body.available !== undefined && body.held !== undefined
        ? {
            available: body.available,
            held: body.held,
            ...(body.pending !== undefined ? { pending: body.pending } : {}),
            reason: body.reason ?? '',
          }
        : undefined;
  }
}

/** 400: the request was refused as invalid (`details` names each field). */
export class LedgerValidationError extends LedgerApiError {}
/** 401: the API key is missing, unknown, revoked or expired (or a rotated key's replaced secret after its overlap). */
export class LedgerAuthenticationError extends LedgerApiError {}
/** 403: the API key lacks the scope (`requiredScope`), or may not be used from this address (`address_not_allowed`). */
export class LedgerForbiddenError extends LedgerApiError {}
/** 404: not found (another tenant's resource is "not found" too). */
export class LedgerNotFoundError extends LedgerApiError {}
/** 409: conflicts with the current state, or the Idempotency-Key was used with another body. */
export class LedgerConflictError extends LedgerApiError {}
/** 429: rate limited; `retryAfterSeconds` says when to come back. */
export class LedgerRateLimitError extends LedgerApiError {}

/** The request may or may not have reached the service (connection refused or reset, timeout). */
export class LedgerConnectionError extends LedgerError {}

const BY_STATUS: Record<number, typeof LedgerApiError> = {
  400: LedgerValidationError,
  401: LedgerAuthenticationError,
  403: LedgerForbiddenError,
  404: LedgerNotFoundError,
  409: LedgerConflictError,
  429: LedgerRateLimitError,
};

/** The typed error for a status; a body that is not the service's error shape keeps the status in its message. */
export function apiErrorFor(
  status: number,
  body: unknown,
  retryAfterSeconds: number | undefined,
  idempotencyKey: string | undefined,
): LedgerApiError {
  const known = isErrorBody(body) ? body : { error: `the service answered ${status}`, code: 'unexpected_response' };
  const ErrorClass = BY_STATUS[status] ?? LedgerApiError;
  return new ErrorClass(status, known, retryAfterSeconds, idempotencyKey);
}

function isErrorBody(body: unknown): body is ErrorBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as ErrorBody).error === 'string' &&
    typeof (body as ErrorBody).code === 'string'
  );
}
