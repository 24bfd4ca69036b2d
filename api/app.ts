import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { AppState } from './context.ts';
import type { Services } from './services.ts';
import { errorHandler } from './middleware/errors.ts';
import { requestId } from './middleware/requestId.ts';
import { sameOrigin, securityHeaders } from './middleware/security.ts';
import { healthRoutes } from './routes/health.ts';
import { reportRoutes } from './routes/reports.ts';
import { notFound } from './errors.ts';
import { spa } from './static.ts';

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
  const app = new Koa<AppState>({ proxy: services.config.trustProxy });
  app.silent = true;

  app.use(requestId(services.log));
  app.use(errorHandler());
  app.use(securityHeaders({ production: services.config.production }));

  const health = healthRoutes(services);
  app.use(health.routes());

  const api = new Router<AppState>({ prefix: '/api' });
  api.use(async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    await next();
  });
  api.use(sameOrigin(services.config.publicUrl));
  api.use(
    koaBody({
      json: true,
      urlencoded: true,
      multipart: false,
      jsonLimit: '64kb',
      formLimit: '64kb',
      textLimit: '64kb',
      jsonStrict: true,
      onError: (error) => {
        throw error;
      },
    }) as unknown as Middleware<AppState>,
  );
  for (const routes of [reportRoutes(services)]) {
    api.use(routes.routes(), routes.allowedMethods());
  }
  api.all('/{*rest}', () => {
    throw notFound('No such API endpoint.');
  });
  app.use(api.routes());

  for (const mount of options.mounts ?? []) {
    app.use(mountAt(mount.prefix, mount.middleware));
  }
  app.use(spa(options.spaDir));
  return app;
}

function mountAt(prefix: string, middleware: Middleware): Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.path === prefix || ctx.path.startsWith(`${prefix}/`)) {
      await middleware(ctx as never, next);
      return;
    }
    await next();
  };
}
