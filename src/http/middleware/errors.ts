import type { Next } from 'koa';
import { isRetryableDatabaseError } from '../../db';
import { AppError, type ErrorKind } from '../../errors';
import type { AppContext } from '../context';
import { HttpError } from '../http-error';

interface HttpLikeError {
  status?: number;
  expose?: boolean;
  message?: string;
}

/** The one place a kind of failure becomes a response status. */
const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  provider_unavailable: 503,
  unavailable: 503,
};

export const httpStatusOf = (error: AppError): number => STATUS_OF[error.kind];

/** Turns every thrown value into {error, code, details?, ...fields, requestId}; never leaks a stack. */
export function errorHandler() {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    try {
      await next();
    } catch (error) {
      const { status, body } = toErrorResponse(error, ctx);
      ctx.status = status;
      ctx.body = body;
      if (error instanceof AppError && error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
    }
  };
}

function toErrorResponse(error: unknown, ctx: AppContext): { status: number; body: Record<string, unknown> } {
  const requestId = ctx.state.requestId;
  if (error instanceof AppError) {
    const status = httpStatusOf(error);
    // A 503 is an outage (the provider's, or work turned away): each one reaches the log at warn, so an
    // outage is never seen only by the clients.
    if (status === 503) ctx.state.log.warn({ kind: error.kind, code: error.code, reason: error.message, path: ctx.path }, 'answered 503');
    return {
      status,
      body: { error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}), ...error.fields, requestId },
    };
  }
  if (error instanceof HttpError) return { status: error.status, body: { error: error.message, code: error.code, requestId } };
  const httpError = error as HttpLikeError;
  if (typeof httpError?.status === 'number' && httpError.status >= 400 && httpError.status < 500 && httpError.expose) {
    const code = httpError.status === 405 ? 'method_not_allowed' : 'bad_request';
    return { status: httpError.status, body: { error: (httpError.message ?? 'bad request').toLowerCase(), code, requestId } };
  }
  // An unreachable database (or a lost deadlock) is a retryable outage, not a server bug: the provider's
  // webhook relies on this 503 to be redelivered rather than lost.
  if (isRetryableDatabaseError(error)) {
    // The Postgres (or socket) error code beside the error itself: what an operator greps an outage's lines by.
    const dbCode = (error as { code?: string }).code ?? (error as Error).name;
    ctx.state.log.warn({ err: error, dbCode, path: ctx.path }, 'database unavailable or transaction conflict: answered 503');
    return { status: 503, body: { error: 'temporarily unavailable, retry later', code: 'unavailable', requestId } };
  }
  ctx.state.log.error({ err: error }, 'unhandled error');
  return { status: 500, body: { error: 'internal error', code: 'internal_error', requestId } };
}
