import type { Next } from 'koa';
import type { z } from 'zod';
import type { ApiKeyScope } from './api-key-scopes';
import type { Permission } from './roles';
import type { AppContext, AuthenticatedTenant, AuthenticatedUser, SessionStage } from './context';

type AuthKind = 'public' | 'apiKey' | 'session';
type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

type Schema = z.ZodType | undefined;
type Infer<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * A check a route runs once its caller is authenticated and its body parsed, before its handler: it throws an
 * AppError to refuse, or calls next. (Approving a payout keeps a slot for a fresh second factor.)
 */
export type RouteGuard = (ctx: AppContext, next: Next) => Promise<void>;

/**
 * A step-up a session route asks for: a TOTP code given in the session within `withinMs`. `every_user`: a user
 * without an authenticator is refused (turning two-factor sign-in off). `two_factor_users`: asked of a user enrolled
 * in two-factor sign-in or whose tenant requires it; a user with neither passes as without the demand (approving
 * money, which a tenant without two-factor keeps open to a password session).
 */
export interface FreshCodeDemand {
  withinMs: number;
  askedOf: 'every_user' | 'two_factor_users';
}

interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface RouteInput<P extends Schema, Q extends Schema, B extends Schema> {
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
  rawBody: Buffer | undefined;
  ctx: AppContext;
}

interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
}

interface RouteSpec<P extends Schema, Q extends Schema, B extends Schema> {
  method: HttpMethod;
  /** Koa-style path: /v1/accounts/:accountRef */
  path: string;
  summary: string;
  tag: string;
  auth: AuthKind;
  /** Session routes: the permission a user's role must hold (default: `read` for GET, `manage_access` for anything else). */
  permission?: Permission;
  /** Session routes: the stages of sign-in a session may be at (default: signed in only). */
  stages?: readonly SessionStage[];
  /** Session routes: a TOTP code must have been given in the session within `withinMs` (step-up), of the users `askedOf` names. */
  freshCode?: FreshCodeDemand;
  /** API key routes: the scope a key needs (default `read` for GET; any other method must name one). */
  scope?: ApiKeyScope;
  params?: P;
  query?: Q;
  body?: B;
  /** Largest JSON body accepted (413 beyond); 1 MB unless the route's schema admits larger bodies. */
  bodyLimit?: number;
  /** The handler reads the request bytes itself (signature checks over raw input). */
  rawBody?: boolean;
  /** Largest raw body accepted (413 beyond); 1 MB unless the route knows its bodies are smaller. */
  rawBodyLimit?: number;
  /** Checks run after authentication and body parsing, before the handler (see RouteGuard). */
  guards?: RouteGuard[];
  /** The route reads an Idempotency-Key header: optional, or 'required'. */
  idempotencyKey?: boolean | 'required';
  responses: Record<number, ResponseSpec>;
  /** Error statuses this route can answer, for the OpenAPI document. */
  errors?: number[];
  handle(input: RouteInput<P, Q, B>): Promise<RouteResult>;
}

export type RouteDefinition = RouteSpec<Schema, Schema, Schema>;

export function defineRoute<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(
  spec: RouteSpec<P, Q, B>,
): RouteDefinition {
  return spec as unknown as RouteDefinition;
}

/** The permission a session route requires: reads are open to every role, changes fail closed to `manage_access` (admins). */
export function requiredPermission(route: Pick<RouteDefinition, 'method' | 'permission'>): Permission {
  return route.permission ?? (route.method === 'get' ? 'read' : 'manage_access');
}

/** The scope an API key route requires, or undefined for a write that names none (createApp refuses to start then). */
export function requiredScope(route: Pick<RouteDefinition, 'method' | 'scope'>): ApiKeyScope | undefined {
  return route.scope ?? (route.method === 'get' ? 'read' : undefined);
}

export function tenantOf(ctx: AppContext): AuthenticatedTenant {
  const tenant = ctx.state.tenant;
  if (!tenant) throw new Error('route declared apiKey auth but no tenant is on the context');
  return tenant;
}

/** The API key a request on an API key route was made with. */
export function apiKeyIdOf(ctx: AppContext): string {
  const keyId = ctx.state.apiKeyId;
  if (!keyId) throw new Error('route declared apiKey auth but no key is on the context');
  return keyId;
}

export function userOf(ctx: AppContext): AuthenticatedUser {
  const user = ctx.state.user;
  if (!user) throw new Error('route declared session auth but no user is on the context');
  return user;
}

export function headerOf(ctx: AppContext, name: string): string | undefined {
  const value = ctx.get(name);
  return value === '' ? undefined : value;
}

/**
 * The Idempotency-Key header, '' when sent empty: an empty key is refused rather than read as no key,
 * since the caller meant a retry to be safe and a settle without a key is not.
 */
export function idempotencyKeyOf(ctx: AppContext): string | undefined {
  return ctx.headers['idempotency-key'] === undefined ? undefined : ctx.get('idempotency-key');
}
