import type { Next } from 'koa';
import { roleAllows, type UserRole } from '../roles';
import { ForbiddenError, UnauthorizedError } from '../../errors';
import type { AppContext, AuthenticatedTenant, AuthenticatedUser } from '../context';

export interface Authenticator {
  tenantForApiKey(apiKey: string): Promise<AuthenticatedTenant | null>;
  userForSession(token: string): Promise<AuthenticatedUser | null>;
}

export const SESSION_COOKIE = 'session';

export function requireApiKey(auth: Authenticator) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const key = ctx.get('x-api-key');
    const tenant = key ? await auth.tenantForApiKey(key) : null;
    if (!tenant) throw new UnauthorizedError('invalid api key');
    ctx.state.tenant = tenant;
    await next();
  };
}

/**
 * A live dashboard session whose user holds at least `role`. SameSite=Strict on the cookie is the
 * CSRF defence; a browser request that still names a foreign Origin is refused, and requests without
 * Origin (non-browser clients) pass.
 */
export function requireSession(auth: Authenticator, publicOrigin: string | undefined, role: UserRole = 'viewer') {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    const user = token ? await auth.userForSession(token) : null;
    if (!user) throw new UnauthorizedError('authentication required');
    // Koa 3's ctx.origin echoes the Origin header, so our own origin is built from protocol and host.
    const origin = ctx.get('origin');
    if (origin && origin !== `${ctx.protocol}://${ctx.host}` && origin !== publicOrigin)
      throw new ForbiddenError('cross-origin request refused');
    if (!roleAllows(user.role, role)) throw new ForbiddenError(`this needs the ${role} role`);
    ctx.state.user = user;
    await next();
  };
}
