import type { Next } from 'koa';
import { addressInRanges } from '../../net/address-ranges';
import { scopesAllow, type ApiKeyScope } from '../api-key-scopes';
import { roleHas, type Permission } from '../roles';
import { AppError, ForbiddenError, MissingScopeError, UnauthorizedError } from '../../errors';
import type { AppContext, AuthenticatedApiKey, AuthenticatedUser, SessionStage } from '../context';
import type { FreshCodeDemand } from '../route';

export interface Authenticator {
  apiKeyFor(secret: string): Promise<AuthenticatedApiKey | null>;
  /** The key was used just now (its last-used time is kept at a coarser grain than each request). */
  noteApiKeyUse(keyId: string): void;
  userForSession(token: string): Promise<AuthenticatedUser | null>;
  /** The time (epoch ms) a TOTP code's freshness is measured against. */
  now(): number;
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

/** Why a session not yet signed in is refused a route that needs more. */
function stageRefusal(stage: SessionStage): AppError {
  if (stage === 'awaiting_code')
    return new AppError(
      'forbidden',
      'second_factor_required',
      'give the code of your authenticator app (or a recovery code) to finish signing in',
    );
  if (stage === 'must_enrol')
    return new AppError(
      'forbidden',
      'two_factor_enrolment_required',
      'your organisation requires two-factor sign-in for your role: set up an authenticator app first',
    );
  return new ForbiddenError('you are already signed in');
}

/**
 * A live dashboard session whose user's role holds `permission`, at one of `stages` (a route is for signed-in
 * sessions unless it says otherwise). SameSite=Strict on the cookie is the CSRF defence; a browser request that
 * still names a foreign Origin is refused, and requests without Origin (non-browser clients) pass.
 */
export function requireSession(
  auth: Authenticator,
  publicOrigin: string | undefined,
  permission: Permission = 'read',
  stages: readonly SessionStage[] = ['signed_in'],
) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    const user = token ? await auth.userForSession(token) : null;
    if (!user) throw new UnauthorizedError('authentication required');
    // Koa 3's ctx.origin echoes the Origin header, so our own origin is built from protocol and host.
    const origin = ctx.get('origin');
    if (origin && origin !== `${ctx.protocol}://${ctx.host}` && origin !== publicOrigin)
      throw new ForbiddenError('cross-origin request refused');
    if (!stages.includes(user.stage)) throw stageRefusal(user.stage);
    if (!roleHas(user.role, permission)) throw new ForbiddenError(`this needs the ${permission} permission`);
    ctx.state.user = user;
    await next();
  };
}

/**
 * Step-up for a sensitive action: the session must have been given a TOTP code within `demand.withinMs`
 * (at sign-in, at enrolment or at POST /auth/two-factor/step-up); otherwise `403 fresh_code_required`,
 * and the client confirms a code and asks again. Whom it is asked of is the demand's `askedOf` (see
 * FreshCodeDemand). Runs after requireSession.
 */
export function requireFreshCode(auth: Authenticator, demand: FreshCodeDemand) {
  const minutes = Math.round(demand.withinMs / 60_000);
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const user = ctx.state.user;
    if (!user) throw new Error('requireFreshCode runs after requireSession');
    const asked = demand.askedOf === 'every_user' || user.twoFactorEnrolled || user.tenantRequiresTwoFactor;
    if (!asked) return next();
    if (!user.twoFactorEnrolled)
      throw new AppError(
        'forbidden',
        'two_factor_not_enrolled',
        'this needs a code of your authenticator app: set up two-factor sign-in first',
      );
    const age = user.codeVerifiedAt === null ? null : auth.now() - user.codeVerifiedAt;
    if (age === null || age > demand.withinMs)
      throw new AppError(
        'forbidden',
        'fresh_code_required',
        `this needs a code of your authenticator app given in the last ${minutes} minutes: confirm one (POST /auth/two-factor/step-up) and try again`,
      );
    await next();
  };
}
