import type { AuditLog } from '../audit/audit-log';
import type { Config } from '../config';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import type { RateLimits } from '../rate-limits/rate-limits';
import type { AuthService } from './auth.service';
import { loginBodySchema, loginResponseSchema, meResponseSchema } from './auth.schemas';
import { clearSessionCookie, setSessionCookie } from './session-cookie';

export function authRoutes(deps: {
  auth: AuthService;
  audit: AuditLog;
  config: Pick<Config, 'SESSION_TTL' | 'NODE_ENV'>;
  limits: Pick<RateLimits, 'signInAddressEmail' | 'signInAddress'>;
}): RouteDefinition[] {
  const { auth, audit, config, limits } = deps;
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
      errors: [400, 401, 403, 429],
      handle: async ({ body, ctx }) => {
        // Counted before the password is hashed, so a flood is turned away without the hashing cost.
        // Every attempt costs the client's address, a success too (so succeeding with one's own account
        // buys an attacker nothing); the address-and-email budget gets a success's attempt back, so only
        // failures from that address add up, and failures elsewhere never lock the user out.
        const addressEmail = `${ctx.ip}|${body.email.trim().toLowerCase()}`;
        await limits.signInAddress.consume(ctx.ip);
        await limits.signInAddressEmail.consume(addressEmail);
        const outcome = await auth.login(body.email, body.password, body.tenantId);
        await limits.signInAddressEmail.reward(addressEmail);
        if (outcome.kind === 'choose_tenant') return { status: 200, body: { chooseTenant: outcome.tenants } };
        const session = outcome;
        setSessionCookie(ctx, config, session.token, config.SESSION_TTL);
        // A session waiting for its second factor is recorded as signed in once the code is given.
        if (!session.awaitingSecondFactor)
          await audit.record({ id: session.userId, tenantId: session.tenantId, email: session.email }, 'session.signed_in', {
            type: 'user',
            id: session.userId,
          });
        return {
          status: 200,
          body: {
            secondFactorRequired: session.awaitingSecondFactor,
            userId: session.userId,
            tenantId: session.tenantId,
            email: session.email,
            role: session.role,
            expiresAt: session.expiresAt.toISOString(),
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/logout',
      summary: 'Revokes the current dashboard session',
      tag: 'auth',
      auth: 'session',
      permission: 'read',
      stages: ['awaiting_code', 'must_enrol', 'signed_in'],
      responses: { 204: { description: 'Logged out' } },
      handle: async ({ ctx }) => {
        const user = userOf(ctx);
        await auth.logout(user.sessionId);
        await audit.record(user, 'session.signed_out', { type: 'user', id: user.id });
        clearSessionCookie(ctx, config);
        return { status: 204 };
      },
    }),
  ];
}
