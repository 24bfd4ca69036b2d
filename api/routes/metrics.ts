import Router from '@koa/router';
import type { Middleware } from 'koa';
import {
  createRegistry,
  httpDurationHistogram,
  metricsAccess,
  registerFleetMetrics,
  type Registry,
} from '../../core/observability/metrics.ts';
import type { AppState } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * GET /metrics in Prometheus text format: this process's request timings and Node process
 * metrics, plus the fleet-wide figures read from Postgres (cached a few seconds). Open outside
 * production; in production it needs `Authorization: Bearer METRICS_TOKEN`.
 */
export function metricsRoutes(services: Services): {
  timing: Middleware<AppState>;
  router: Router<AppState>;
  registry: Registry;
} {
  const registry = createRegistry();
  const durations = httpDurationHistogram(registry);
  registerFleetMetrics(registry, services.db);

  const timing: Middleware<AppState> = async (ctx, next) => {
    const end = durations.startTimer();
    try {
      await next();
    } finally {
      end({ method: ctx.method, route: routeLabel(ctx.path, ctx._matchedRoute), status: ctx.status });
    }
  };

  // Paths are case-sensitive throughout (api/app.ts `mountAt`).
  const router = new Router<AppState>({ sensitive: true });
  router.get('/metrics', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const access = metricsAccess(services.config, ctx.get('authorization') || undefined);
    if (access === 'off') {
      ctx.status = 404;
      ctx.body = { message: 'Metrics are off: set METRICS_TOKEN.' };
      return;
    }
    if (access === 'unauthorized') {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer');
      ctx.body = { message: 'A bearer token is required.' };
      return;
    }
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return { timing, router, registry };
}

/**
 * The route pattern a request matched (`/api/vm/:id/start`), never the raw path, so label
 * values stay few. Requests no router matched (the SPA's files, anything mounted) are grouped.
 */
function routeLabel(path: string, matched: string | RegExp | undefined): string {
  if (typeof matched === 'string') return matched;
  return path.startsWith('/api/') ? '/api/*' : 'other';
}
