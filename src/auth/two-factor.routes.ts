import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import type { SessionStage } from '../http/context';
import { userParamsSchema } from './tenant-admin.schemas';
import { FRESH_CODE_MAX_AGE_MS } from './two-factor-requirement';
import {
  enrolmentStartedSchema,
  recoveryCodesSchema,
  secondFactorBodySchema,
  secondFactorSignedInSchema,
  steppedUpSchema,
  totpCodeBodySchema,
  twoFactorResetSchema,
  twoFactorStatusSchema,
} from './two-factor.schemas';
import type { TwoFactorService } from './two-factor.service';

/** Enrolling is open to a session its tenant sends to enrol before anything else. */
const ENROLLING: readonly SessionStage[] = ['must_enrol', 'signed_in'];

/** Two-factor sign-in: the second step of signing in, enrolment, step-up, turning it off, an admin's reset, the tenant's requirement. */
export function twoFactorRoutes(deps: { twoFactor: TwoFactorService }): RouteDefinition[] {
  const { twoFactor } = deps;
  const status = async (ctx: Parameters<typeof userOf>[0]) => ({ status: 200, body: await twoFactor.status(userOf(ctx)) });
  return [
    defineRoute({
      method: 'post',
      path: '/auth/two-factor/sign-in',
      summary: 'The second step of signing in: a code of the authenticator app, or a recovery code (each used once)',
      tag: 'auth',
      auth: 'session',
      permission: 'read',
      stages: ['awaiting_code'],
      body: secondFactorBodySchema,
      responses: { 200: { description: 'Signed in', schema: secondFactorSignedInSchema } },
      errors: [400, 401, 403, 429],
      handle: async ({ body, ctx }) => {
        const { expiresAt } = await twoFactor.completeSignIn(userOf(ctx), ctx.ip, body);
        return { status: 200, body: { expiresAt: expiresAt.toISOString() } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/two-factor',
      summary: "Whether two-factor sign-in is on for the signed-in user, and the tenant's requirement",
      tag: 'dashboard',
      auth: 'session',
      stages: ENROLLING,
      responses: { 200: { description: 'The state', schema: twoFactorStatusSchema } },
      handle: async ({ ctx }) => status(ctx),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/two-factor/enrolment',
      summary: 'A new authenticator secret with its otpauth URI and QR code; confirm it with a code to turn two-factor sign-in on',
      tag: 'dashboard',
      auth: 'session',
      permission: 'read',
      stages: ENROLLING,
      responses: { 201: { description: 'The secret, shown in this answer only', schema: enrolmentStartedSchema } },
      errors: [409],
      handle: async ({ ctx }) => ({ status: 201, body: await twoFactor.startEnrolment(userOf(ctx)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/two-factor/enrolment/confirm',
      summary: "Turns two-factor sign-in on with the authenticator's first code; the recovery codes are in this answer only",
      tag: 'dashboard',
      auth: 'session',
      permission: 'read',
      stages: ENROLLING,
      body: totpCodeBodySchema,
      responses: { 200: { description: 'The recovery codes, each usable once', schema: recoveryCodesSchema } },
      errors: [400, 409],
      handle: async ({ body, ctx }) => ({ status: 200, body: await twoFactor.confirmEnrolment(userOf(ctx), body.code) }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/two-factor/step-up',
      summary: 'Gives a code now, for the actions that ask for a recent one',
      tag: 'dashboard',
      auth: 'session',
      permission: 'read',
      body: totpCodeBodySchema,
      responses: { 200: { description: 'When the code was given', schema: steppedUpSchema } },
      errors: [400, 409, 429],
      handle: async ({ body, ctx }) => {
        const { codeVerifiedAt } = await twoFactor.stepUp(userOf(ctx), ctx.ip, body.code);
        return { status: 200, body: { codeVerifiedAt: codeVerifiedAt.toISOString() } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/two-factor/disable',
      summary: 'Turns two-factor sign-in off for the signed-in user (needs a recent code; refused where the tenant requires it)',
      tag: 'dashboard',
      auth: 'session',
      permission: 'read',
      freshCode: { withinMs: FRESH_CODE_MAX_AGE_MS, askedOf: 'every_user' },
      responses: { 204: { description: 'Off: the authenticator and the recovery codes are forgotten' } },
      errors: [403, 409],
      handle: async ({ ctx }) => {
        await twoFactor.disable(userOf(ctx));
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/auth/two-factor/requirement',
      summary: 'Require two-factor sign-in of the roles that move money or administer',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      responses: { 200: { description: 'The state', schema: twoFactorStatusSchema } },
      handle: async ({ ctx }) => {
        await twoFactor.setRequirement(userOf(ctx), true);
        return status(ctx);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/two-factor/requirement',
      summary: 'Stop requiring two-factor sign-in (needs a recent code)',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      freshCode: { withinMs: FRESH_CODE_MAX_AGE_MS, askedOf: 'every_user' },
      responses: { 200: { description: 'The state', schema: twoFactorStatusSchema } },
      errors: [403],
      handle: async ({ ctx }) => {
        await twoFactor.setRequirement(userOf(ctx), false);
        return status(ctx);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/users/:id/two-factor/reset',
      summary: "Removes another user's authenticator and recovery codes (a lost phone) and ends their sessions",
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      params: userParamsSchema,
      responses: { 200: { description: 'How many sessions ended', schema: twoFactorResetSchema } },
      errors: [404, 409],
      handle: async ({ params, ctx }) => ({ status: 200, body: await twoFactor.reset(userOf(ctx), params.id) }),
    }),
  ];
}
