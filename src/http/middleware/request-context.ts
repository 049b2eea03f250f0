import type { Next } from 'koa';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger';
import type { AppContext } from '../context';

const INCOMING_ID_RE = /^[A-Za-z0-9._-]{1,100}$/;

/** Gives every request an id (the caller's X-Request-Id when sane) and writes one access-log line. */
export function requestContext(logger: Logger) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const incoming = ctx.get('x-request-id');
    const requestId = INCOMING_ID_RE.test(incoming) ? incoming : randomUUID();
    const started = process.hrtime.bigint();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          durationMs: Math.round(durationMs * 10) / 10,
          tenantId: ctx.state.tenant?.id,
        },
        'request',
      );
    }
  };
}
