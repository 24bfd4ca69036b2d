import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, Agent, type Server } from 'node:http';
import Koa from 'koa';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { createDbPool } from '../../core/db/pool.ts';
import { sendJob, startBoss } from '../../core/queue.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { createSandboxEc2 } from '../../sandbox/ec2/index.ts';
import { freshDatabase } from '../support/db.ts';
import { waitFor } from '../support/stack.ts';

/**
 * A rolling restart as a platform does it, with the real processes (`node api/main.ts`,
 * `node worker/main.ts`): two web processes behind a load balancer and one worker, under a
 * steady 200 requests a second and a stream of jobs. Each web process in turn is taken out of
 * rotation and sent SIGTERM as a replacement starts; the worker is replaced the same way.
 * Nothing may be lost: no failed request, every job done.
 */

const databaseUrl = await freshDatabase();
const db = await createDbPool(databaseUrl);
const boss = await startBoss(databaseUrl, 'script');

// The outside world the processes talk to (mail catcher, EC2 for the worker's sweeps).
const sandboxEc2 = createSandboxEc2({ profile: 'fast' });
const sandboxApp = new Koa();
sandboxApp.use(createSandbox({ profile: 'fast', ec2: sandboxEc2 }));
const sandbox = await listen(createServer(sandboxApp.callback()));

const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await boss.stop({ graceful: false });
  await db.end();
  await new Promise<void>((resolve) => sandbox.server.close(() => resolve()));
});

async function listen(server: Server, port = 0): Promise<{ server: Server; port: number; url: string }> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  const bound = address && typeof address === 'object' ? address.port : 0;
  return { server, port: bound, url: `http://127.0.0.1:${bound}` };
}

async function freePort(): Promise<number> {
  const { server, port } = await listen(createServer());
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const env = {
  ...process.env,
  NODE_ENV: 'test',
  DATABASE_URL: databaseUrl,
  SANDBOX_URL: sandbox.url,
  LOG_LEVEL: 'warn',
  WARM_POOL_SIZE: '0',
  EC2_PRIVATE_KEY_PEM: sandboxEc2.defaultPrivateKeyPem(),
};

type Proc = { child: ChildProcess; exited: Promise<number | null> };

function launch(script: string, extra: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [script], {
    env: { ...env, ...extra },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      children.delete(child);
      if (code !== 0) console.error(`${script} exited ${code}: ${stderr}`);
      resolve(code);
    }),
  );
  return { child, exited };
}

async function startWeb(): Promise<Proc & { url: string }> {
  const port = await freePort();
  const proc = launch('api/main.ts', { PORT: String(port), HOST: '127.0.0.1' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    'the web process to be ready',
    async () =>
      (await fetch(`${url}/readyz`)
        .then((r) => r.ok)
        .catch(() => false)) || null,
    60_000,
  );
  return { ...proc, url };
}

/** The load balancer: round-robin over the web processes in rotation, keep-alive upstream. */
const rotation: string[] = [];
// Like a load balancer's: idle upstream connections are dropped (30 s) before the web
// process would drop them (65 s), so a reused connection is never one being closed.
const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 30_000 });
let next = 0;
const balancer = await listen(
  createServer((req, res) => {
    const target = rotation[next++ % rotation.length];
    if (!target) {
      res.writeHead(503).end('no backend');
      return;
    }
    const upstream = request(
      `${target}${req.url}`,
      { method: req.method, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(`upstream error: ${error.message}`);
      console.error(`balancer: ${target}${req.url} ${error.message}`);
    });
    req.pipe(upstream);
  }),
);
balancer.server.keepAliveTimeout = 65_000;
afterAll(() => new Promise<void>((resolve) => balancer.server.close(() => resolve())));

/** The clients: a pool of kept-alive connections to the balancer, as browsers and CDNs keep. */
const clients = new Agent({ keepAlive: true, maxSockets: 64, timeout: 30_000 });
function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: clients, timeout: 60_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 60 s')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * A client on a slow link: the request's headers and half its body reach the web process,
 * the rest follows when `finish` is called. The answer's status (or the error) resolves.
 */
function slowReport(base: string) {
  const body = JSON.stringify({
    title: 'Slow upload',
    description: 'Sent over a slow link',
    phoneNumber: '9876543210',
  });
  const half = Math.floor(body.length / 2);
  let finish = () => {};
  const status = new Promise<string>((resolve) => {
    const req = request(`${base}/api/report-problem`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        origin: base.replace('127.0.0.1', 'localhost'),
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
    });
    req.on('error', (error: Error & { code?: string }) => resolve(`${error.message} ${error.code ?? ''}`));
    req.write(body.slice(0, half));
    finish = () => void req.end(body.slice(half));
  });
  return { status, finish: () => finish() };
}

describe('rolling restart', () => {
  it('of both web processes and the worker under 200 requests a second loses no request and no job', async () => {
    const webs = await Promise.all([startWeb(), startWeb()]);
    rotation.push(...webs.map((w) => w.url));
    let worker = launch('worker/main.ts');

    // Steady load: a request every 5 ms (readiness touches the database and the queue; the
    // plan catalogue goes through the session middleware), and a mail job every 50 ms.
    const outcome = { requests: 0, errors: [] as string[], jobs: [] as string[] };
    const inFlight = new Set<Promise<void>>();
    const fire = (path: string) => {
      outcome.requests++;
      const p = get(`${balancer.url}${path}`)
        .then((status) => {
          if (status >= 500) outcome.errors.push(`${path} ${status}`);
        })
        .catch(
          (error: Error & { code?: string }) =>
            void outcome.errors.push(`${path} ${error.message} ${error.code ?? ''}`),
        )
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    };
    // Timers drift on a busy machine: each tick sends whatever keeps the average at 200/s.
    const started = Date.now();
    let sent = 0;
    const load = setInterval(() => {
      const due = Math.floor(((Date.now() - started) * 200) / 1000);
      for (; sent < due; sent++) {
        fire(sent % 2 ? '/readyz' : '/api/plans');
        if (sent % 10 === 0) {
          const to = `restart-${sent}@jobs.test`;
          sendJob(boss, 'email-send', { kind: 'test', to, subject: 'restart', text: 'hello' }).then(
            (id) => void (id && outcome.jobs.push(id)),
            (error: Error) => void outcome.errors.push(`send job: ${error.message}`),
          );
        }
      }
    }, 5);

    const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await settle(2000);
    // Each web process in turn: its replacement joins, it leaves rotation and gets SIGTERM.
    for (let i = 0; i < webs.length; i++) {
      const old = webs[i]!;
      const replacement = await startWeb();
      rotation.push(replacement.url);
      // Requests still arriving at the old process when it is told to stop.
      const slow = [slowReport(old.url), slowReport(old.url)];
      await settle(300);
      rotation.splice(rotation.indexOf(old.url), 1);
      old.child.kill('SIGTERM');
      await settle(1000);
      for (const s of slow) s.finish();
      expect(await Promise.all(slow.map((s) => s.status))).toEqual(['201', '201']);
      expect(await old.exited).toBe(0);
      webs[i] = replacement;
      await settle(1000);
    }
    // The worker: a new one starts, the old one is told to stop.
    const newWorker = launch('worker/main.ts');
    await settle(1500);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    worker = newWorker;
    await settle(2000);

    clearInterval(load);
    const seconds = (Date.now() - started) / 1000;
    await Promise.all([...inFlight]);

    console.info(
      `rolling restart: ${outcome.requests} requests in ${seconds.toFixed(1)} s (${Math.round(outcome.requests / seconds)}/s), ${outcome.errors.length} errors; ${outcome.jobs.length} jobs`,
    );
    expect(outcome.errors).toEqual([]);
    expect(outcome.requests).toBeGreaterThan(1000);

    // Every job finished, none failed or left behind.
    const states = await waitFor(
      'every job to finish',
      async () => {
        const rows = await db.any(sql.type(z.object({ state: z.string(), count: z.number() }))`
          SELECT state::text AS state, count(*)::int AS count FROM pgboss.job
          WHERE id = ANY(${sql.array(outcome.jobs, 'uuid')}) GROUP BY state`);
        const byState = Object.fromEntries(rows.map((r) => [r.state, r.count]));
        return byState.completed === outcome.jobs.length ? byState : null;
      },
      60_000,
    );
    expect(states).toEqual({ completed: outcome.jobs.length });
    worker.child.kill('SIGTERM');
    await worker.exited;
    for (const web of webs) {
      web.child.kill('SIGTERM');
      await web.exited;
    }
  }, 180_000);
});
