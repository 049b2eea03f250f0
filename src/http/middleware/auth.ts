import type { Next } from 'koa';
import { addressInRanges } from '../../net/address-ranges';
import { scopesAllow, type ApiKeyScope } from '../api-key-scopes';
import { roleHas, type Permission } from '../roles';
import { AppError, ForbiddenError, MissingScopeError, UnauthorizedError } from '../../errors';
import type { AppContext, AuthenticatedApiKey, AuthenticatedUser } from '../context';

export interface Authenticator {
  apiKeyFor(secret: string): Promise<AuthenticatedApiKey | null>;
  /** The key was used just now (its last-used time is kept at a coarser grain than each request). */
  noteApiKeyUse(keyId: string): void;
  userForSession(token: string): Promise<AuthenticatedUser | null>;
}

export const SESSION_COOKIE = 'session';

/**
 * A known, unexpired key (401 otherwise), used from an address it allows and holding `scope` (403
 * otherwise). The address is Koa's `ctx.ip`: the socket's peer, or with TRUST_PROXY the address the one
 * trusted proxy appended to X-Forwarded-For (see createApp), the same address sign-in rate limits use.
 */
export function requireApiKey(auth: Authenticator, scope: ApiKeyScope) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const secret = ctx.get('x-api-key');
    const key = secret ? await auth.apiKeyFor(secret) : null;
    if (!key) throw new UnauthorizedError('invalid api key');
    const at = Date.now();
    if (key.replacedSecretValidUntil !== null && key.replacedSecretValidUntil <= at)
      throw new AppError('unauthorized', 'api_key_rotated', 'this api key was rotated and its previous secret no longer works');
    if (key.expiresAt !== null && key.expiresAt <= at) throw new AppError('unauthorized', 'api_key_expired', 'api key expired');
    if (key.allowedSources && !addressInRanges(ctx.ip, key.allowedSources))
      throw new AppError('forbidden', 'address_not_allowed', `this api key may not be used from ${ctx.ip}`);
    if (!scopesAllow(key.scopes, scope)) throw new MissingScopeError(scope);
    ctx.state.tenant = key.tenant;
    ctx.state.apiKeyId = key.id;
    auth.noteApiKeyUse(key.id);
    await next();
  };
}

/**
 * A live dashboard session whose user's role holds `permission`. SameSite=Strict on the cookie is the
 * CSRF defence; a browser request that still names a foreign Origin is refused, and requests without
 * Origin (non-browser clients) pass.
 */
export function requireSession(auth: Authenticator, publicOrigin: string | undefined, permission: Permission = 'read') {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    const user = token ? await auth.userForSession(token) : null;
    if (!user) throw new UnauthorizedError('authentication required');
    // Koa 3's ctx.origin echoes the Origin header, so our own origin is built from protocol and host.
    const origin = ctx.get('origin');
    if (origin && origin !== `${ctx.protocol}://${ctx.host}` && origin !== publicOrigin)
      throw new ForbiddenError('cross-origin request refused');
    if (!roleHas(user.role, permission)) throw new ForbiddenError(`this needs the ${permission} permission`);
    ctx.state.user = user;
    await next();
  };
}
