import Router from '@koa/router';
import { sql } from '../../core/db/pool.ts';
import type { AppState } from '../context.ts';
import type { Services } from '../services.ts';

export function healthRoutes(services: Services): Router<AppState> {
  // Paths are case-sensitive throughout (api/app.ts `mountAt`).
  const router = new Router<AppState>({ sensitive: true });
  // Alive: the process answers. Load balancers restart what fails this.
  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ok: true };
  });
  // Ready: the database and the queue answer. Load balancers route only to what passes this.
  router.get('/readyz', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const checks = { database: false, queue: false };
    // A failed check takes this instance out of rotation; the log says why.
    const failed = (check: keyof typeof checks) => (error: unknown) =>
      ctx.state.log.error({ err: error, check }, 'readyz: a dependency does not answer');
    await Promise.all([
      services.db.oneFirst(sql.unsafe`SELECT 1`).then(() => (checks.database = true), failed('database')),
      services.boss.getQueues().then(() => (checks.queue = true), failed('queue')),
    ]);
    const ok = checks.database && checks.queue;
    ctx.status = ok ? 200 : 503;
    ctx.body = ok
      ? { ok, checks }
      : { ok, checks, message: 'Not ready: the database or the queue does not answer.' };
  });
  return router;
}
