import type { Config } from '../config';
import type { AppContext } from '../http/context';
import { SESSION_COOKIE } from '../http/middleware/auth';

/**
 * Every place that sets or clears the session cookie goes through here. The cookie is HttpOnly and
 * SameSite=Strict, and Secure over TLS and always in production, where TLS ends at a proxy in front of
 * us: Koa refuses to set a Secure cookie on what it sees as a plain connection unless told otherwise.
 */
export function setSessionCookie(ctx: AppContext, config: Pick<Config, 'NODE_ENV'>, value: string, maxAge: number): void {
  const secure = ctx.secure || config.NODE_ENV === 'production';
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge, overwrite: true });
}

/** Tells the browser to drop the cookie of a session that has ended. */
export function clearSessionCookie(ctx: AppContext, config: Pick<Config, 'NODE_ENV'>): void {
  setSessionCookie(ctx, config, '', 0);
}
