import type { Config } from '../config';
import type { AppContext } from '../http/context';
import { SESSION_COOKIE } from '../http/middleware/auth';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import type { RateLimits } from '../rate-limits/rate-limits';
import type { AuthService } from './auth.service';
import { loginBodySchema, loginResponseSchema, meResponseSchema } from './auth.schemas';

/**
 * The session cookie is Secure over TLS, and always in production, where TLS ends at a proxy in front
 * of us: Koa refuses to set a Secure cookie on what it sees as a plain connection unless told otherwise.
 */
function setSessionCookie(ctx: AppContext, production: boolean, value: string, maxAge: number): void {
  const secure = ctx.secure || production;
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge, overwrite: true });
}

export function authRoutes(deps: { auth: AuthService; config: Pick<Config, 'SESSION_TTL' | 'NODE_ENV'>; limits: Pick<RateLimits, 'signInEmail' | 'signInAddress'> }): RouteDefinition[] {
  const { auth, config, limits } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/me',
      summary: 'The tenant the API key belongs to',
      tag: 'auth',
      auth: 'apiKey',
      responses: { 200: { description: 'The tenant', schema: meResponseSchema } },
      handle: async ({ ctx }) => {
        const tenant = tenantOf(ctx);
        return { status: 200, body: { tenantId: tenant.id, name: tenant.name } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/login',
      summary: 'Dashboard login; sets the session cookie',
      tag: 'auth',
      auth: 'public',
      body: loginBodySchema,
      responses: { 200: { description: 'Logged in', schema: loginResponseSchema } },
      errors: [400, 401, 429],
      handle: async ({ body, ctx }) => {
        // Counted before the password is hashed, so a flood is turned away without the hashing cost;
        // a successful sign-in gives its attempt back, so only failures add up.
        const email = body.email.trim().toLowerCase();
        await limits.signInAddress.consume(ctx.ip);
        await limits.signInEmail.consume(email);
        const session = await auth.login(body.email, body.password);
        await Promise.all([limits.signInAddress.reward(ctx.ip), limits.signInEmail.reward(email)]);
        setSessionCookie(ctx, config.NODE_ENV === 'production', session.token, config.SESSION_TTL);
        return {
          status: 200,
          body: { userId: session.userId, tenantId: session.tenantId, email: session.email, expiresAt: session.expiresAt.toISOString() },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/logout',
      summary: 'Revokes the current dashboard session',
      tag: 'auth',
      auth: 'session',
      responses: { 204: { description: 'Logged out' } },
      handle: async ({ ctx }) => {
        await auth.logout(userOf(ctx).sessionId);
        setSessionCookie(ctx, config.NODE_ENV === 'production', '', 0);
        return { status: 204 };
      },
    }),
  ];
}
