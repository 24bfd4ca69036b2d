import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import pg from 'pg';
import { loadConfig } from '../../core/config/config.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createApp } from '../../api/app.ts';
import { openServices } from '../../api/services.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { createSandboxEc2 } from '../../sandbox/ec2/index.ts';

/**
 * The servers the poll benchmark loads, in a process of their own so the load generator does
 * not share their event loop: a bare Koa route, a Koa route doing one simple `pg` query (the
 * baselines), and the real web app. It also counts the statements every pg client sends, so
 * the bench can say how many round trips and writes one request costs (only while asked to), and reports its own CPU
 * time, so the bench can say what one request costs this process whatever else the machine runs.
 *
 * The app is booted as `npm start` boots it: the sandbox (PayU, EC2, … stand-ins) is mounted at
 * /sandbox in the same process, so the burst benchmark can pay through the real checkout and
 * webhook. The worker runs in a process of its own (scripts/bench/poll.ts starts it with
 * `workerEnv`).
 *
 * Started by scripts/bench/poll.ts with DATABASE_URL; prints one JSON line with the ports and
 * the worker's environment.
 */

// Counted only between GET /reset and GET /counts (the bench's sequential sample), so the
// counting itself is not part of what the loaded figures measure.
let counting = false;
const counts = { statements: 0, writes: 0, texts: new Map<string, number>() };
const originalQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  if (!counting) return originalQuery.apply(this, args);
  const first = args[0];
  const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
  counts.statements++;
  if (/^\s*(INSERT|UPDATE|DELETE)\b/i.test(text)) counts.writes++;
  const key = text.replace(/\s+/g, ' ').trim().slice(0, 90);
  counts.texts.set(key, (counts.texts.get(key) ?? 0) + 1);
  return originalQuery.apply(this, args);
} as typeof pg.Client.prototype.query;

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('pollServer needs DATABASE_URL');

async function listen(handler: Parameters<typeof createServer>[1]): Promise<Server & { port: number }> {
  const server = createServer(handler);
  // Many keep-alive connections from the load generator: do not let Node cap them.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return Object.assign(server, { port: address && typeof address === 'object' ? address.port : 0 });
}

const bare = new Koa();
const bareRouter = new Router();
bareRouter.get('/hello', (ctx) => {
  ctx.body = { ok: true };
});
bare.use(bareRouter.routes());

// The same pool size the app's slonik pool has, so the baseline is not starved or favoured.
const baselinePool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const oneQuery = new Koa();
const oneQueryRouter = new Router();
oneQueryRouter.get('/user/:id', async (ctx) => {
  const result = await baselinePool.query('SELECT id, email, name FROM users WHERE id = $1', [ctx.params.id]);
  ctx.body = result.rows[0] ?? null;
});
oneQuery.use(oneQueryRouter.routes());

// The app's port must be known before its config (PayU return URLs, the sandbox's webhook).
const appServer = await listen(() => undefined);
const sandboxEc2 = createSandboxEc2({ profile: 'fast' });
const workerEnv = {
  NODE_ENV: 'test',
  PORT: String(appServer.port),
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: 'silent',
  APP_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
  EC2_PRIVATE_KEY_PEM: sandboxEc2.defaultPrivateKeyPem(),
  WARM_POOL_SIZE: '0',
  // A burst of a hundred purchases of one plan must not be refused for capacity.
  CAPACITY_LIMITS: 'g4dn.xlarge=1000,g4dn.2xlarge=1000,g5.xlarge=1000,g5.2xlarge=1000,g5.4xlarge=1000',
};
const config = loadConfig(workerEnv);
const services = await openServices(config, databaseUrl, createLogger({ level: 'silent', name: 'bench' }));
const app = createApp(services, {
  mounts: [
    {
      prefix: '/sandbox',
      middleware: createSandbox({
        profile: 'fast',
        ec2: sandboxEc2,
        payu: {
          key: config.payu.key,
          salt: config.payu.salt,
          webhookUrl: `${config.sandbox.url}/api/payu/webhook`,
        },
      }),
    },
  ],
});
appServer.removeAllListeners('request');
appServer.on('request', app.callback());

const control = new Koa();
control.use((ctx) => {
  if (ctx.path === '/reset') {
    counts.statements = 0;
    counts.writes = 0;
    counts.texts.clear();
    counting = true;
  }
  if (ctx.path === '/counts') counting = false;
  const cpu = process.cpuUsage();
  ctx.body = {
    statements: counts.statements,
    writes: counts.writes,
    texts: Object.fromEntries(counts.texts),
    cpuMicros: cpu.user + cpu.system,
  };
});

const [bareServer, oneQueryServer, controlServer] = await Promise.all([
  listen(bare.callback()),
  listen(oneQuery.callback()),
  listen(control.callback()),
]);
const servers = [bareServer, oneQueryServer, appServer, controlServer];
console.log(
  JSON.stringify({
    bare: bareServer.port,
    oneQuery: oneQueryServer.port,
    app: appServer.port,
    control: controlServer.port,
    workerEnv,
  }),
);

process.on('SIGTERM', () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  void Promise.all([baselinePool.end(), services.close()]).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('pollServer: shutting down failed', error);
      process.exit(1);
    },
  );
});
