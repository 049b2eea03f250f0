export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * What kind of failure a client is told about. The edge (src/http) alone turns a kind into a
 * response status; code and message reach the client as they are.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'provider_unavailable'
  | 'unavailable';

/** Every failure a client may see: its kind, a snake_case code and a human message. */
export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    /** How long the client should wait before trying again, when that is known. */
    readonly retryAfterSeconds?: number,
    /** Fields the error body carries beside error and code, telling the client what it needs to act. */
    readonly fields?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super('invalid', 'validation_error', message, details);
  }
}

export class BadRequestError extends AppError {
  constructor(code: string, message: string, fields?: Record<string, string>) {
    super('invalid', code, message, undefined, undefined, fields);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super('not_found', 'not_found', message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message: string) {
    super('unauthorized', 'unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('forbidden', 'forbidden', message);
  }
}

/** An API key asked for something outside its scopes: names the scope it lacks, in the message and in `requiredScope`. */
export class MissingScopeError extends AppError {
  constructor(scope: string) {
    super('forbidden', 'missing_scope', `this api key lacks the ${scope} scope`, undefined, undefined, { requiredScope: scope });
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super('conflict', 'conflict', message);
  }
}

/** Money may not leave (or, for a transfer, arrive at) an account its freeze closes: 409 naming the freeze. */
export class AccountFrozenError extends AppError {
  constructor(message: string) {
    super('conflict', 'account_frozen', message);
  }
}

/** The provider left a call unanswered (after the retries a lookup gets): come back after `retryAfterSeconds`. */
export class ProviderOutageError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(
      'provider_unavailable',
      'provider_unavailable',
      `provider unavailable: try again in ${retryAfterSeconds} s`,
      undefined,
      retryAfterSeconds,
    );
  }
}

/** SPEC.md's text for any unusable amount, with the schema's code whether a schema or a rule found it. */
export const invalidAmount = (): ValidationError => new ValidationError('invalid amount');
