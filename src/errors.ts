export interface ErrorDetail {
  path: string;
  message: string;
}

/** Every failure a client may see: HTTP status, a snake_case code and a human message. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    /** Response headers that belong to the error (Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'validation_error', message, details);
  }
}

export class BadRequestError extends AppError {
  constructor(code: string, message: string) {
    super(400, code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message: string) {
    super(401, 'unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, 'forbidden', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'conflict', message);
  }
}

export class ProviderUnavailableHttpError extends AppError {
  constructor() {
    super(502, 'provider_unavailable', 'provider unavailable');
  }
}

/** SPEC.md's text for any unusable amount, with the schema's code whether a schema or a rule found it. */
export const invalidAmount = (): ValidationError => new ValidationError('invalid amount');
