import Koa from 'koa';
import Router from '@koa/router';
import pg from 'pg';
import { listenOnLoopback } from './listen.ts';
import { loadConfig } from '../../core/config/config.ts';
import { createLogger } from '../../core/observability/log.ts';
import { createApp } from '../../api/app.ts';
import { openServices } from '../../api/services.ts';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SANDBOX_PAYU_KEY, SANDBOX_PAYU_SALT } from '../../sandbox/index.ts';

/**
 * The servers the poll benchmark loads, in a process of their own so the load generator does
 * not share their event loop: a bare Koa route, a Koa route doing one simple `pg` query (the
 * baselines), and the real web app. It also counts the statements every pg client sends, so
 * the bench can say how many round trips and writes one request costs (only while asked to), and reports its own CPU
 * time, so the bench can say what one request costs this process whatever else the machine runs.
 *
 * The app is booted as production boots it, without the sandbox: PayU, EC2 and the other
 * stand-ins run in a process of their own (scripts/bench/sandboxServer.ts), as the real services
 * would be elsewhere, so the burst benchmark pays through the real checkout and webhook without
 * charging PayU's work to the web process. The worker runs in a process of its own too
 * (scripts/bench/poll.ts starts it with `workerEnv`).
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
const appServer = await listenOnLoopback(() => undefined);
// PayU, EC2 and the rest of the outside world run in a process of their own (see there why).
const sandboxProcess = spawn(process.execPath, ['scripts/bench/sandboxServer.ts'], {
  env: {
    ...process.env,
    WEBHOOK_URL: `http://127.0.0.1:${appServer.port}/api/payu/webhook`,
    PAYU_KEY: SANDBOX_PAYU_KEY,
    PAYU_SALT: SANDBOX_PAYU_SALT,
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const sandbox = await new Promise<{ port: number; ec2PrivateKeyPem: string }>((resolve, reject) => {
  createInterface({ input: sandboxProcess.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
  sandboxProcess.once('exit', (code) => reject(new Error(`the bench sandbox exited with ${code}`)));
});
const sandboxUrl = `http://127.0.0.1:${sandbox.port}`;
const workerEnv = {
  NODE_ENV: 'test',
  PORT: String(appServer.port),
  DATABASE_URL: databaseUrl,
  SANDBOX_URL: sandboxUrl,
  LOG_LEVEL: 'silent',
  APP_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
  EC2_PRIVATE_KEY_PEM: sandbox.ec2PrivateKeyPem,
  WARM_POOL_SIZE: '0',
  // A burst of a hundred purchases of one plan must not be refused for capacity.
  CAPACITY_LIMITS: 'g4dn.xlarge=1000,g4dn.2xlarge=1000,g5.xlarge=1000,g5.2xlarge=1000,g5.4xlarge=1000',
};
const config = loadConfig(workerEnv);
const services = await openServices(config, databaseUrl, createLogger({ level: 'silent', name: 'bench' }));
const app = createApp(services);
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
  listenOnLoopback(bare.callback()),
  listenOnLoopback(oneQuery.callback()),
  listenOnLoopback(control.callback()),
]);
const servers = [bareServer, oneQueryServer, appServer, controlServer];
console.log(
  JSON.stringify({
    bare: bareServer.port,
    oneQuery: oneQueryServer.port,
    app: appServer.port,
    control: controlServer.port,
    sandbox: sandbox.port,
    workerEnv,
  }),
);

process.on('SIGTERM', () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  sandboxProcess.kill('SIGTERM');
  void Promise.all([baselinePool.end(), services.close()]).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('pollServer: shutting down failed', error);
      process.exit(1);
    },
  );
});
