import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import { mailCatcher } from './mail.ts';
import { STYLES } from './html.ts';

/**
 * Local stand-ins for the outside world, speaking the real services' wire protocols.
 * It imports nothing of ours: it plays the other side. Mounted under /sandbox by
 * `npm start` and the test harness, never by the production web process.
 */
export type SandboxOptions = { profile: 'fast' | 'aws' };

export function createSandbox(_options: SandboxOptions): Middleware {
  const app = new Koa();
  const router = new Router({ prefix: '/sandbox' });
  router.get('/sandbox.css', (ctx) => {
    ctx.type = 'text/css';
    ctx.body = STYLES;
  });
  const mail = mailCatcher();
  router.use(mail.routes(), mail.allowedMethods());
  router.get('/', (ctx) => {
    ctx.redirect('/sandbox/mail');
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  const handler = app.callback();
  // Run the sandbox as its own Koa app inside ours: its errors and body parsing stay its own.
  return async (ctx) => {
    ctx.respond = false;
    await handler(ctx.req, ctx.res);
  };
}
