import type { Next } from 'koa';
import { BadRequestError } from '../../errors';
import { formatLsn, parseLsn } from '../../read-routing/lsn';
import type { ReadRouter } from '../../read-routing/read-router';
import type { AppContext } from '../context';

/** Given on every write's answer: the primary's position after it, which a later read presents to see that write. */
export const READ_AFTER_HEADER = 'X-Read-After';
/** Says where a read that may come from a replica was served: `replica` or `primary`. */
export const READ_FROM_HEADER = 'X-Read-From';

function tenantIdOf(ctx: AppContext): string | undefined {
  return ctx.state.tenant?.id ?? ctx.state.user?.tenantId ?? ctx.state.writeTenantId;
}

/**
 * A read the replica may serve: it does when it has replayed the caller's last write (the X-Read-After presented, or
 * else its tenant's last recorded write) and is within the lag bound. A replica that fails the read (down, or a
 * conflict with recovery) leaves it to the primary: never an error for the caller.
 */
export function replicaRead(reads: ReadRouter) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const presented = ctx.get(READ_AFTER_HEADER);
    const readAfter = presented ? parseLsn(presented) : null;
    if (readAfter === undefined)
      throw new BadRequestError(
        'invalid_read_after',
        `${READ_AFTER_HEADER} must be a position as a write's answer gave it, such as 16/B374D848`,
      );
    const decision = await reads.choose({ readAfter, tenantId: tenantIdOf(ctx) ?? null });
    if (decision.source === 'replica') {
      ctx.set(READ_FROM_HEADER, 'replica');
      try {
        await reads.onReplica(next);
        return;
      } catch (error) {
        if (!reads.replicaFailed(error)) throw error;
        ctx.state.log.warn({ err: error }, 'read replica failed a read: made again on the primary');
      }
    } else {
      ctx.state.log.debug({ reason: decision.reason }, 'read served by the primary');
    }
    ctx.set(READ_FROM_HEADER, 'primary');
    await next();
  };
}

/**
 * After a tenant's write: records its position as the tenant's last write and answers it as X-Read-After. A failure to
 * record it (the write itself committed) is logged, not answered: the write stands, and its reads wait on the lag bound.
 */
export function readAfterWrite(reads: ReadRouter) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    await next();
    const tenantId = tenantIdOf(ctx);
    if (!tenantId || ctx.status >= 400) return;
    try {
      ctx.set(READ_AFTER_HEADER, formatLsn(await reads.wrote(tenantId)));
    } catch (error) {
      ctx.state.log.warn({ err: error, tenantId }, 'could not record the write position of a tenant');
    }
  };
}
