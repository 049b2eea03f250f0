import type Router from '@koa/router';
import { ninOutcome } from './magic-values';
import { parseInput, SandboxHttpError } from './sandbox-http';
import { ninCheckSchema } from './sandbox.schemas';

/** The identity-verification service (separate in production). Needs no provider token. */
export function registerIdentityRoutes(router: Router): void {
  router.post('/identity/nin', (ctx) => {
    const { nin } = parseInput(ninCheckSchema, ctx.request.body);
    const outcome = ninOutcome(nin);
    if (outcome === 'unavailable') throw new SandboxHttpError(503, '503', 'identity verification service unavailable');
    ctx.body = { verified: outcome === 'verified' };
  });
}
