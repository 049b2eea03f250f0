import type Router from '@koa/router';
import { issueToken } from './auth';
import type { SandboxDeps } from './sandbox.deps';
import { answer, parseInput } from './sandbox-http';
import { tokenIssueSchema } from './sandbox.schemas';

export function registerAuthRoutes(router: Router, deps: SandboxDeps): void {
  router.post('/v1/auth/token/issue', (ctx) => {
    parseInput(tokenIssueSchema, ctx.request.body);
    answer(ctx, issueToken(deps.state), { description: 'Token issued' });
  });
}
