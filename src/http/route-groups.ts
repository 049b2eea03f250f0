import Router from '@koa/router';
import type { Middleware, Next } from 'koa';
import type { AppContext, AppState } from './context';

/**
 * A path's group: its first two segments (`/v1/accounts/ACC1/statement` is in `/v1/accounts`, `/webhooks/provider`
 * in itself), lower-cased as the routers match without regard to case.
 */
function groupOf(path: string): string {
  const second = path.indexOf('/', 1);
  const third = second === -1 ? -1 : path.indexOf('/', second + 1);
  return (third === -1 ? path : path.slice(0, third)).toLowerCase();
}

/**
 * The API's routes in one router per group of paths, so a request is matched against its group's few routes
 * instead of every route in turn (@koa/router tries each route's pattern, and the API has some 150: every
 * provider webhook paid for all of them). A route's first two segments must be literal for its group to be known
 * from the path alone; a route that is not fails here, before anything listens. Paths of no group go to `rest`.
 */
export function createRouteGroups() {
  const groups = new Map<string, Router<AppState>>();

  return {
    /** The router a route path registers in. */
    routerFor(path: string): Router<AppState> {
      const group = groupOf(path);
      if (/[:*{(]/.test(group)) throw new Error(`${path}: the first two segments of an API route must be literal`);
      let router = groups.get(group);
      if (!router) groups.set(group, (router = new Router<AppState>()));
      return router;
    },

    /** Dispatches a request to its group's router (its routes, then its answer to a method it lacks), else to `rest`'s. */
    middleware(rest: Router<AppState>): Middleware<AppState> {
      const dispatchers = new Map([...groups].map(([group, router]) => [group, dispatcherOf(router)] as const));
      const restDispatcher = dispatcherOf(rest);
      return (ctx, next) => (dispatchers.get(groupOf(ctx.path)) ?? restDispatcher)(ctx as AppContext, next);
    },
  };
}

function dispatcherOf(router: Router<AppState>) {
  const routes = router.routes() as unknown as (ctx: AppContext, next: Next) => Promise<unknown>;
  const allowedMethods = router.allowedMethods() as unknown as (ctx: AppContext, next: Next) => Promise<unknown>;
  return (ctx: AppContext, next: Next) => routes(ctx, () => allowedMethods(ctx, next));
}
