import type { Context, Next } from 'koa';
import type { z } from 'zod';
import { AppError } from '../errors';
import { HttpError } from '../http/http-error';
import { httpStatusOf } from '../http/middleware/errors';
import type { Logger } from '../logger';

/** An answer in the provider's error shape: {code, description}; `html` answers a proxy's HTML page instead. */
export class SandboxHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly options: { headers?: Record<string, string>; html?: boolean } = {},
  ) {
    super(description);
    this.name = 'SandboxHttpError';
  }
}

/** What a gateway in front of the provider answers when the provider is down: not the provider's JSON. */
const GATEWAY_PAGE = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';

/** The provider's success envelope. */
export function answer(ctx: Context, data: unknown, options: { status?: number; code?: string; description?: string } = {}): void {
  ctx.status = options.status ?? 200;
  ctx.body = { code: options.code ?? '00', description: options.description ?? 'Request successful', data };
}

/** Validates a request part; the first issue, with its field, becomes a 400. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.');
  throw new SandboxHttpError(400, '400', field ? `${field}: ${issue?.message}` : (issue?.message ?? 'invalid request'));
}

interface HttpLikeError {
  status?: number;
  expose?: boolean;
  message?: string;
}

/** Every failure becomes provider-shaped JSON; client mistakes are 4xx, never 500. */
export function sandboxErrors(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
    } catch (error) {
      const { status, code, description } = toErrorAnswer(error, logger);
      ctx.status = status;
      if (error instanceof SandboxHttpError && error.options.headers) ctx.set(error.options.headers);
      if (error instanceof SandboxHttpError && error.options.html) {
        ctx.type = 'text/html';
        ctx.body = GATEWAY_PAGE;
        return;
      }
      ctx.body = { code, description };
    }
  };
}

function toErrorAnswer(error: unknown, logger: Logger): { status: number; code: string; description: string } {
  if (error instanceof SandboxHttpError) return { status: error.status, code: error.code, description: error.description };
  if (error instanceof AppError) return { status: httpStatusOf(error), code: String(httpStatusOf(error)), description: error.message };
  if (error instanceof HttpError) return { status: error.status, code: String(error.status), description: error.message };
  const httpError = error as HttpLikeError;
  if (typeof httpError?.status === 'number' && httpError.status >= 400 && httpError.status < 500 && httpError.expose) {
    return { status: httpError.status, code: String(httpError.status), description: (httpError.message ?? 'bad request').toLowerCase() };
  }
  logger.error({ err: error }, 'sandbox internal error');
  return { status: 500, code: '500', description: 'internal error' };
}

/**
 * The last middleware. It answers instead of throwing, so that allowedMethods (which inspects the
 * response after its downstream returns) can still turn a known path with the wrong method into a 405.
 */
export function routeNotFound(ctx: Context): void {
  ctx.status = 404;
  ctx.body = { code: '404', description: 'route not found' };
}

/** One line per request; bodies are never logged (they carry NINs and BVNs). */
export function accessLog(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.respond === false ? 'held' : ctx.status,
          durationMs: Math.round(performance.now() - started),
        },
        'sandbox request',
      );
    }
  };
}
