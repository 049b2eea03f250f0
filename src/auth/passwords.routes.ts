import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import type { RateLimits } from '../rate-limits/rate-limits';
import type { PasswordChangesService } from './password-changes.service';
import { changePasswordBodySchema, issuedResetSchema, resetPasswordBodySchema, sessionsEndedSchema } from './passwords.schemas';
import { userParamsSchema } from './tenant-admin.schemas';

/** Changing one's own password, an admin's reset token, and setting a password with that token. */
export function passwordRoutes(deps: { passwords: PasswordChangesService; limits: Pick<RateLimits, 'signInAddress'> }): RouteDefinition[] {
  const { passwords, limits } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/auth/password',
      summary: 'Change your own password (the current one is required); ends your other sessions',
      tag: 'dashboard',
      auth: 'session',
      permission: 'read',
      body: changePasswordBodySchema,
      responses: { 200: { description: 'Changed; how many other sessions ended', schema: sessionsEndedSchema } },
      errors: [400, 429],
      handle: async ({ body, ctx }) => {
        // A wrong current password is a guess like a failed sign-in, and costs the same budget.
        await limits.signInAddress.consume(ctx.ip);
        return { status: 200, body: await passwords.change(userOf(ctx), body.currentPassword, body.newPassword) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/users/:id/password-reset',
      summary: 'Issue a one-time password reset token for a user of the tenant, shown once; expires after PASSWORD_RESET_TTL',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      params: userParamsSchema,
      responses: { 201: { description: 'The token, in this answer only', schema: issuedResetSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const issued = await passwords.issueReset(userOf(ctx), params.id);
        return { status: 201, body: { token: issued.token, expiresAt: issued.expiresAt.toISOString() } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/password-reset',
      summary: "Set a new password with an admin's reset token (once); ends every session of the user",
      tag: 'dashboard',
      auth: 'public',
      body: resetPasswordBodySchema,
      responses: { 200: { description: 'The password is set; how many sessions ended', schema: sessionsEndedSchema } },
      errors: [400, 429],
      handle: async ({ body, ctx }) => {
        await limits.signInAddress.consume(ctx.ip);
        return { status: 200, body: await passwords.reset(body.token, body.newPassword) };
      },
    }),
  ];
}
