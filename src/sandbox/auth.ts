import type { Context, Next } from 'koa';
import { randomToken } from '../ids';
import { SandboxHttpError } from './sandbox-http';
import type { SandboxState } from './sandbox.state';

interface IssuedToken {
  access_token: string;
  refresh_token: string;
  expiresAt: string;
}

/** The sandbox accepts any client id and secret. */
export function issueToken(state: SandboxState): IssuedToken {
  const accessToken = randomToken(40);
  const expiresAtMs = Date.now() + state.tokenTtlMs;
  state.tokens.set(accessToken, expiresAtMs);
  state.tokensIssued += 1;
  return { access_token: accessToken, refresh_token: randomToken(40), expiresAt: new Date(expiresAtMs).toISOString() };
}

export function expireAllTokens(state: SandboxState): number {
  const count = state.tokens.size;
  state.tokens.clear();
  return count;
}

function bearerToken(ctx: Context): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
  return match?.[1] ?? null;
}

/** Every provider route but token issue needs a live bearer token and an accountId header. */
export function requireProviderAuth(state: SandboxState) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const token = bearerToken(ctx);
    const expiresAtMs = token === null ? undefined : state.tokens.get(token);
    if (expiresAtMs === undefined || expiresAtMs <= Date.now()) {
      state.tokensRejected += 1;
      throw new SandboxHttpError(401, '401', token === null ? 'missing bearer token' : 'invalid or expired token');
    }
    if (ctx.get('accountid').trim() === '') throw new SandboxHttpError(401, '401', 'missing accountId header');
    await next();
  };
}
