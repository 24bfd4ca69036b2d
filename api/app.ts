import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import compose from 'koa-compose';
import type { AppContext, AppState } from './context.ts';
import type { Services } from './services.ts';
import { errorHandler } from './middleware/errors.ts';
import { requestId } from './middleware/requestId.ts';
import { canonicalLoopbackHost, requireHttps, sameOrigin, securityHeaders } from './middleware/security.ts';
import { bodyParser, forBodyMethods, refuseBadCharacters, requireKnownBodyType } from './middleware/input.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { reportRoutes } from './routes/reports.ts';
import { publicSiteRoutes } from './routes/publicSite.ts';
import { authRoutes } from './routes/auth.ts';
import { userRoutes } from './routes/user.ts';
import { loadSession } from './middleware/auth.ts';
import { planRoutes } from './routes/plans.ts';
import { paymentRoutes, PAYU_CALLBACK_PREFIX, refuseLargeCallbacks } from './routes/payments.ts';
import { invoiceRoutes } from './routes/invoices.ts';
import { vmRoutes } from './routes/vm.ts';
import { usageRoutes } from './routes/usage.ts';
import { desktopRoutes, refuseLargeDcvAuth } from './routes/desktop.ts';
import { idleRoutes } from './routes/idle.ts';
import { machineHealthRoutes, refuseLargeHealthReports } from './routes/machineHealth.ts';
import { streamingRoutes } from './routes/streaming.ts';
import { autopayRoutes } from './routes/autopay.ts';
import { notFound } from './errors.ts';
import { ROUTE_MATCHING } from './routePath.ts';
import { spa } from './static.ts';
import { siteFileRoutes } from './routes/siteFiles.ts';

export type AppOptions = {
  /** Extra apps mounted under a path prefix before the SPA, e.g. the dev sandbox at /sandbox. */
  mounts?: Array<{ prefix: string; middleware: Middleware }>;
  spaDir?: string;
};

/**
 * The web process: validates, authorizes, writes rows and enqueues. Middleware order is the
 * contract: request id → errors → headers → health → /api (body limits, origin check, routes,
 * JSON 404) → mounts → SPA.
 */
export function createApp(services: Services, options: AppOptions = {}): Koa<AppState> {
  // ctx.ip: the socket address, or with N trusted hops the Nth X-Forwarded-For entry from the
  // right (Koa keeps the last maxIpsCount entries and takes the first of them).
  const hops = services.config.trustProxyHops;
  const app = new Koa<AppState>({ proxy: hops > 0, maxIpsCount: hops });
  app.silent = true;

  app.use(requestId(services.log));
  // Times every request, by the route pattern it matched (GET /metrics).
  const metrics = metricsRoutes(services);
  app.use(metrics.timing);
  app.use(errorHandler());
  app.use(
    securityHeaders({
      production: services.config.production,
      // Google Identity Services' script and iframe, only when a real client id is configured.
      googleSignIn: services.config.google.mode === 'google',
      // The /payment page posts its form to PayU's hosted checkout (our own origin in sandbox
      // mode, named anyway: a page opened under another host name still may post there).
      formActions: origins([services.config.payu.checkoutUrl]),
      // The connection check page fetches its regional endpoint from the browser.
      connectSources: origins([services.config.connectionCheck.pingUrl]),
    }),
  );

  const health = healthRoutes(services);
  app.use(routesBySegment(health));
  app.use(routesBySegment(metrics.router));
  // After health: load balancers probe /healthz over plain HTTP by the instance's address.
  if (services.config.production) {
    app.use(requireHttps(services.config.publicUrl));
    if (hops === 0) {
      // The web process speaks plain HTTP, so HTTPS means a proxy; without trusting it every
      // page would be redirected to HTTPS again and again.
      services.log.warn(
        'TRUST_PROXY_HOPS is 0: requests count as plain HTTP from the proxy itself. Behind a load balancer set it to 1.',
      );
    }
  }
  app.use(canonicalLoopbackHost(services.config.publicUrl));

  // Every /api request passes these guards in this order, composed once into one middleware
  // (one step per request, not one router layer each: the router matched, wrapped and
  // re-composed every guard on every request, which cost the dashboard poll more than its query).
  const apiGuards = compose<AppContext>([
    async (ctx, next) => {
      ctx.set('Cache-Control', 'no-store');
      await next();
    },
    // PayU's posts are a couple of kilobytes: anything far larger at the callback paths is
    // refused before it is read, so a flood of big bodies costs nothing.
    refuseLargeCallbacks(),
    // Likewise DCV's token verifications (a few hundred bytes) and machines' health reports.
    refuseLargeDcvAuth(),
    refuseLargeHealthReports(),
    // PayU's browser return is a cross-site form post by design; its reverse hash is the check.
    sameOrigin(services.config.publicUrl, { exemptPaths: [PAYU_CALLBACK_PREFIX] }),
    // Who is asking: sets ctx.state.user from the session cookie (never refuses by itself).
    loadSession({ db: services.db, production: services.config.production }),
    requireKnownBodyType(),
    forBodyMethods(bodyParser()),
    refuseBadCharacters(),
  ]);
  // One router holding every /api route (the route groups' routers are copied into it), run
  // inside the /api mount after the guards: no API route is reachable any other way.
  const api = apiRouter(apiRouters(services));
  app.use(
    mountAt(
      '/api',
      compose<AppContext>([
        apiGuards,
        routesBySegment(api) as unknown as compose.Middleware<AppContext>,
        () => {
          throw notFound('No such API endpoint.');
        },
      ]) as Middleware,
    ),
  );
  for (const mount of options.mounts ?? []) {
    app.use(mountAt(mount.prefix, mount.middleware));
  }
  app.use(siteFileRoutes(services.config.publicUrl).routes());
  app.use(spa(options.spaDir, { sourceMaps: services.config.serveSourceMaps }));
  return app;
}

/** Every /api route group, in the order they are tried (paths relative to /api). */
export function apiRouters(services: Services): Router<AppState>[] {
  return [
    reportRoutes(services),
    publicSiteRoutes(services),
    authRoutes(services),
    userRoutes(services),
    planRoutes(services),
    paymentRoutes(services),
    invoiceRoutes(services),
    vmRoutes(services),
    usageRoutes(services),
    desktopRoutes(services),
    idleRoutes(services),
    machineHealthRoutes(services),
    streamingRoutes(services),
    autopayRoutes(services),
  ];
}

/** The origins of `urls` (CSP sources are origins). */
function origins(urls: string[]): string[] {
  return [...new Set(urls.map((url) => new URL(url).origin))];
}

/**
 * The app's one routing rule: paths are case-sensitive. `/api` in any case is the API's, so
 * every guard runs on `/API/...` too (which then matches no route: 404); every route matches
 * only as written. (Koa-router matches without regard to case unless told otherwise, while a
 * prefix check is exact: `/API/auth/logout` once reached the logout route past every guard.)
 */
function mountAt(prefix: string, middleware: Middleware): Middleware<AppState> {
  return async (ctx, next) => {
    // `//api/...` is the API's too (answered by its JSON 404): a doubled slash is an empty path
    // segment, and a client that joined its base URL and a path with one slash too many reads
    // JSON, not the SPA's not-found page.
    const path = ctx.path.replace(/^\/{2,}/, '/');
    const head = path.slice(0, prefix.length).toLowerCase();
    if (head === prefix && (path.length === prefix.length || path[prefix.length] === '/')) {
      await middleware(ctx as never, next);
      return;
    }
    await next();
  };
}

/**
 * A router's routes, looked up by the first segment of the request's path (after the router's
 * prefix) before any is tried: `/api/vm/dashboard` is matched against the `/api/vm/…` routes
 * only, not against each of the API's hundred-odd patterns in turn, which cost every request
 * more than its guards did. The routes and their order within a segment are the router's own;
 * a path whose segment no route starts with goes on, as the router would send it on unmatched.
 * A router with a route that does not start with a fixed segment is used whole.
 */
function routesBySegment(router: Router<AppState>): Middleware<AppState> {
  const prefix = router.opts.prefix ?? '';
  const groups = new Map<string, Router<AppState>>();
  for (const layer of router.stack) {
    const segment =
      typeof layer.path === 'string' && layer.path.startsWith(`${prefix}/`)
        ? /^\/([\w.-]+)(?:\/|$)/.exec(layer.path.slice(prefix.length))?.[1]
        : undefined;
    if (segment === undefined) return router.routes() as unknown as Middleware<AppState>;
    let group = groups.get(segment);
    if (!group) groups.set(segment, (group = new Router<AppState>()));
    group.stack.push(layer);
  }
  const routes = new Map(
    [...groups].map(([segment, group]) => [segment, group.routes() as unknown as Middleware<AppState>]),
  );
  const start = prefix.length + 1;
  return (ctx, next) => {
    const path = ctx.path;
    const end = path.indexOf('/', start);
    const matching = routes.get(path.slice(start, end === -1 ? undefined : end));
    return matching ? matching(ctx, next) : next();
  };
}

/**
 * The one router holding every /api route group, each route matching its path by the app's one
 * rule (ROUTE_MATCHING: case-sensitive). Mounting a group under the /api prefix compiles its
 * paths again, with these options.
 */
export function apiRouter(groups: Router<AppState>[]): Router<AppState> {
  const api = new Router<AppState>({ prefix: '/api' });
  for (const group of groups) {
    for (const layer of group.stack) Object.assign(layer.opts, ROUTE_MATCHING);
    api.use(group.routes());
  }
  return api;
}
