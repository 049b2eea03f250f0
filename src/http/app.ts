import Router from '@koa/router';
import Koa, { type Next } from 'koa';
import { Readable } from 'node:stream';
import type { Config } from '../config';
import { createDashboardSite, DASHBOARD_SECURITY_HEADERS, type DashboardSite } from './static-site';
import { HttpError } from './http-error';
import type { Logger } from '../logger';
import type { AppContext, AppState } from './context';
import { requireApiKey, requireFreshCode, requireSession, type Authenticator } from './middleware/auth';
import { readAfterWrite, replicaRead } from './middleware/read-routing';
import type { ReadRouter } from '../read-routing/read-router';
import { jsonBody, readRawBody } from './middleware/body';
import { errorHandler } from './middleware/errors';
import { requestContext } from './middleware/request-context';
import { foldBracketedQuery } from './metadata';
import { buildOpenApi, type OpenApiWebhooks } from './openapi';
import { requiredPermission, requiredScope, type RouteDefinition } from './route';
import { createRouteGroups } from './route-groups';
import { validate } from './validation';

export type ReadinessCheck = () => Promise<Record<string, boolean>>;

interface AppDeps {
  config: Config;
  logger: Logger;
  auth: Authenticator;
  readiness: ReadinessCheck;
  routes: RouteDefinition[];
  /** The event bodies the service sends, for the OpenAPI document's `webhooks`. */
  webhooks?: OpenApiWebhooks;
  /** The built web app served at /dashboard (default: dist/dashboard). */
  dashboard?: DashboardSite;
  /** With a replica configured: the GET routes (by path) whose reads it may serve, and the router that decides. */
  replicaReads?: { router: ReadRouter; paths: ReadonlySet<string> };
}

/** Responses are checked against their declared schema outside production, so the OpenAPI document cannot drift. */
function checkResponse(route: RouteDefinition, status: number, body: unknown): void {
  const schema = route.responses[status]?.schema;
  if (!route.responses[status]) throw new Error(`${route.method.toUpperCase()} ${route.path} answered undeclared status ${status}`);
  if (!schema) return;
  const result = schema.safeParse(body);
  if (!result.success)
    throw new Error(`${route.method.toUpperCase()} ${route.path} response does not match its schema: ${result.error.message}`);
}

/**
 * A streamed body that fails after its status line went out cannot become an error response: the
 * connection is cut, so the client sees a broken response, never a clean 200 with a truncated body.
 */
function cutOnStreamError(ctx: AppContext, body: Readable): void {
  body.once('error', () => ctx.res.destroy());
}

function handlerFor(route: RouteDefinition, checkResponses: boolean) {
  return async (ctx: AppContext): Promise<void> => {
    const params = route.params ? validate(route.params, ctx.params, 'params') : undefined;
    const query = route.query ? validate(route.query, foldBracketedQuery(ctx.query), 'query') : undefined;
    const rawBody = route.rawBody ? await readRawBody(ctx.req, route.rawBodyLimit) : undefined;
    const body = route.body && !route.rawBody ? validate(route.body, ctx.request.body, 'body') : undefined;
    const result = await route.handle({ params, query, body, rawBody, ctx });
    if (checkResponses) checkResponse(route, result.status, result.body);
    ctx.status = result.status;
    if (result.body instanceof Readable) cutOnStreamError(ctx, result.body);
    if (result.body !== undefined) ctx.body = result.body;
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  };
}

/**
 * Every authenticated response (API keys' tenant data, customers, accounts, statements, the webhook
 * secret...) and everything under /auth (sign-in included) may carry secrets or personal data: no
 * browser, proxy or CDN keeps a copy. Errors of those routes too, since they are set before auth runs.
 */
function carriesPrivateData(route: RouteDefinition): boolean {
  return route.auth !== 'public' || route.path.startsWith('/auth/');
}

async function noStore(ctx: AppContext, next: Next): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  await next();
}

/** What the dashboard reads under /auth carries its pages' Content-Security-Policy and the rest, errors too. */
async function dashboardHeaders(ctx: AppContext, next: Next): Promise<void> {
  ctx.set(DASHBOARD_SECURITY_HEADERS);
  await next();
}

/** Every API key route needs exactly one scope: a write that names none fails closed, here, before anything listens. */
function scopeOf(route: RouteDefinition) {
  const scope = requiredScope(route);
  if (!scope) throw new Error(`${route.method.toUpperCase()} ${route.path} is an API key write and names no scope`);
  return scope;
}

/** A path named as a replica read that is no GET route is a slip that would quietly keep its reads on the primary. */
function refuseUnknownReplicaReads(routes: RouteDefinition[], paths: ReadonlySet<string>): void {
  const gets = new Set(routes.filter((route) => route.method === 'get').map((route) => route.path));
  const unknown = [...paths].filter((path) => !gets.has(path));
  if (unknown.length) throw new Error(`replica reads name paths that are no GET route: ${unknown.join(', ')}`);
}

export function createApp(deps: AppDeps): Koa<AppState> {
  const { config, logger, auth, readiness, routes } = deps;
  const app = new Koa<AppState>();
  app.proxy = config.TRUST_PROXY;
  // One proxy hop is trusted: the client address is the one it appended to X-Forwarded-For, not
  // whatever the client wrote at the front of that header.
  app.maxIpsCount = 1;
  app.silent = true;
  const router = new Router<AppState>();
  const groups = createRouteGroups();
  const openApi = buildOpenApi(routes, { title: 'NUBAN virtual-account ledger', version: '1.0.0' }, deps.webhooks);
  const publicOrigin = config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : undefined;
  const checkResponses = config.RESPONSE_SCHEMA_CHECKS ?? config.NODE_ENV !== 'production';
  const parseJson = jsonBody();
  const reads = deps.replicaReads?.router.replicated ? deps.replicaReads : undefined;
  if (reads) refuseUnknownReplicaReads(routes, reads.paths);

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const checks = await readiness();
    const ready = Object.values(checks).every(Boolean);
    ctx.status = ready ? 200 : 503;
    ctx.body = {
      status: ready ? 'ready' : 'unavailable',
      checks: Object.fromEntries(Object.entries(checks).map(([name, up]) => [name, up ? 'up' : 'down'])),
    };
  });
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApi;
  });
  const dashboard = deps.dashboard ?? createDashboardSite();
  router.get('/', (ctx) => ctx.redirect('/dashboard'));
  router.get('/dashboard{/*path}', (ctx) => dashboard.serve(ctx, ctx.params.path ?? ''));

  for (const route of routes) {
    const middleware: Array<(ctx: AppContext, next: Next) => Promise<void>> = [];
    if (reads && route.method !== 'get') middleware.push(readAfterWrite(reads.router));
    if (carriesPrivateData(route)) middleware.push(noStore);
    if (route.path.startsWith('/auth/')) middleware.push(dashboardHeaders);
    if (route.auth === 'apiKey') middleware.push(requireApiKey(auth, scopeOf(route)));
    if (route.auth === 'session') middleware.push(requireSession(auth, publicOrigin, requiredPermission(route), route.stages));
    if (route.auth === 'session' && route.freshCode) middleware.push(requireFreshCode(auth, route.freshCode));
    if (route.body && !route.rawBody) {
      const parse = route.bodyLimit === undefined ? parseJson : jsonBody(route.bodyLimit);
      middleware.push(parse as unknown as (ctx: AppContext, next: Next) => Promise<void>);
    }
    middleware.push(...(route.guards ?? []));
    if (reads && route.method === 'get' && reads.paths.has(route.path)) middleware.push(replicaRead(reads.router));
    groups.routerFor(route.path).register(route.path, [route.method], [...middleware, handlerFor(route, checkResponses)]);
  }

  app.use(requestContext(logger));
  app.use(errorHandler());
  // After everything else has run, bodies for what the router left bare. allowedMethods answers a
  // method a known path lacks with 405 and its Allow header (kept: errorHandler only sets status and
  // body), and a method no route implements (TRACE, PROPFIND...) with 501, a server error for a
  // client's choice, so that is a 405 too; on a path nothing matched, the Allow list is empty: a 404.
  app.use(async (ctx, next) => {
    await next();
    if (ctx.body !== undefined) return;
    if ((ctx.status === 405 || ctx.status === 501) && ctx.response.get('Allow'))
      throw new HttpError(405, 'method_not_allowed', 'method not allowed');
    if (ctx.status === 404 || ctx.status === 501) {
      ctx.remove('Allow');
      throw new HttpError(404, 'not_found', 'route not found');
    }
  });
  app.use(groups.middleware(router));
  return app;
}
