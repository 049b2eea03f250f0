import type { AuditLog } from '../audit/audit-log';
import type { Config } from '../config';
import { SESSION_COOKIE } from '../http/middleware/auth';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import type { AuthService } from './auth.service';
import { loginBodySchema, loginResponseSchema, meResponseSchema } from './auth.schemas';

export function authRoutes(deps: { auth: AuthService; audit: AuditLog; config: Pick<Config, 'SESSION_TTL'> }): RouteDefinition[] {
  const { auth, audit, config } = deps;
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
      errors: [400, 401, 403],
      handle: async ({ body, ctx }) => {
        const session = await auth.login(body.email, body.password);
        ctx.cookies.set(SESSION_COOKIE, session.token, {
          httpOnly: true,
          sameSite: 'strict',
          secure: ctx.secure,
          path: '/',
          maxAge: config.SESSION_TTL,
          overwrite: true,
        });
        await audit.record({ id: session.userId, tenantId: session.tenantId, email: session.email }, 'session.signed_in', { type: 'user', id: session.userId });
        return {
          status: 200,
          body: { userId: session.userId, tenantId: session.tenantId, email: session.email, role: session.role, expiresAt: session.expiresAt.toISOString() },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/logout',
      summary: 'Revokes the current dashboard session',
      tag: 'auth',
      auth: 'session',
      role: 'viewer',
      responses: { 204: { description: 'Logged out' } },
      handle: async ({ ctx }) => {
        const user = userOf(ctx);
        await auth.logout(user.sessionId);
        await audit.record(user, 'session.signed_out', { type: 'user', id: user.id });
        ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/', maxAge: 0, overwrite: true });
        return { status: 204 };
      },
    }),
  ];
}
