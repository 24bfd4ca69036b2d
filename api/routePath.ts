import Router from '@koa/router';

/**
 * How every API route matches a request's path, in one place: case-sensitive, and one trailing
 * slash allowed (`/api/dcv/auth/` is `/api/dcv/auth`), as the router compiles each route. The
 * app's routes are given these options (api/app.ts), and guards that act on one route before it
 * is reached (refusing an oversized body) ask `routeMatcher`, which asks a router holding that
 * route with the same options: a guard cannot miss a spelling its route answers.
 */
export const ROUTE_MATCHING = { sensitive: true, strict: false } as const;

/** Whether a request path (any method) reaches the route at `path` (a full path, `/api/...`). */
export function routeMatcher(path: string): (requestPath: string) => boolean {
  const router = new Router(ROUTE_MATCHING);
  router.all(path, (_ctx, next) => next());
  return (requestPath) => router.match(requestPath, 'POST').route;
}
