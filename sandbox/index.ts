import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import { mailCatcher } from './mail.ts';
import { createSandboxGoogle } from './google/index.ts';
import { createSandboxPayU, SANDBOX_PAYU_KEY, SANDBOX_PAYU_SALT } from './payu/index.ts';
import { STYLES } from './html.ts';
import { createSandboxEc2, type SandboxEc2 } from './ec2/index.ts';
import { createSandboxCloudWatch } from './cloudwatch/index.ts';
import { createSandboxRegionPing } from './regionPing/index.ts';
import { createSandboxRoute53 } from './route53/index.ts';

export { SANDBOX_PAYU_KEY, SANDBOX_PAYU_SALT } from './payu/index.ts';
export { SANDBOX_ROUTE53_ZONE } from './route53/index.ts';

/**
 * Local stand-ins for the outside world, speaking the real services' wire protocols.
 * It imports nothing of ours: it plays the other side. Mounted under /sandbox by
 * `npm start` and the test harness, never by the production web process.
 */
export type SandboxOptions = {
  profile: 'fast' | 'aws';
  ec2?: SandboxEc2;
  /**
   * The merchant PayU plays for (the app's configured sandbox key and salt) and where its
   * server-to-server webhook goes, as PayU's dashboard setting would say. Defaults: the
   * public sandbox pair, no webhook.
   */
  payu?: { key: string; salt: string; webhookUrl?: string };
};

export function createSandbox(options: SandboxOptions): Middleware {
  const app = new Koa();
  const router = new Router({ prefix: '/sandbox' });
  router.get('/sandbox.css', (ctx) => {
    ctx.type = 'text/css';
    ctx.body = STYLES;
  });
  const mail = mailCatcher();
  router.use(mail.routes(), mail.allowedMethods());
  router.use('/google', createSandboxGoogle().router.routes());
  const ec2 = options.ec2 ?? createSandboxEc2({ profile: options.profile });
  router.use('/ec2', ec2.router.routes(), ec2.router.allowedMethods());
  router.use('/servicequotas', ec2.serviceQuotas.routes(), ec2.serviceQuotas.allowedMethods());
  router.use('/iam', ec2.iam.routes(), ec2.iam.allowedMethods());
  // Each machine's Sunshine and health reporter (game streaming), when the EC2 stand-in runs them.
  if (ec2.sunshine) router.use('/sunshine', ec2.sunshine.routes(), ec2.sunshine.allowedMethods());
  // CloudWatch has points only for instances the EC2 stand-in says are running (usage page).
  const cloudWatch = createSandboxCloudWatch({ fleet: () => ec2.state() });
  router.use('/cloudwatch', cloudWatch.router.routes(), cloudWatch.router.allowedMethods());
  const payu = createSandboxPayU({
    key: options.payu?.key ?? SANDBOX_PAYU_KEY,
    salt: options.payu?.salt ?? SANDBOX_PAYU_SALT,
    ...(options.payu?.webhookUrl ? { webhookUrl: options.payu.webhookUrl } : {}),
    merchantName: 'Legend Cloud',
  });
  router.use('/payu', payu.routes(), payu.allowedMethods());
  // The regional endpoint the connection check page measures from the browser.
  const regionPing = createSandboxRegionPing();
  router.use('/region-ping', regionPing.router.routes(), regionPing.router.allowedMethods());
  // The machines' DNS names (Route 53's REST XML API).
  const route53 = createSandboxRoute53();
  router.use('/route53', route53.router.routes(), route53.router.allowedMethods());
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
