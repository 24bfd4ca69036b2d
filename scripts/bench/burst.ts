import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type autocannon from 'autocannon';
import { z } from 'zod';
import { hashToken, randomToken } from '../../core/crypto/crypto.ts';
import { createDbPool, sql, type DatabasePool } from '../../core/db/pool.ts';
import { insertSession } from '../../core/db/sessions.ts';
import { insertUser } from '../../core/db/users.ts';
import { startScratchDatabase } from '../lib/scratch.ts';
import type { Window } from './pollLoad.ts';
import { fmtMs, fmtRatio, heading, record, seedSignedInUser } from './lib.ts';

/**
 * `npm run bench -- burst`: BURST customers pay at the same moment, with the signed-in dashboard
 * poll paced alongside. The web app runs as production boots it (scripts/bench/pollServer.ts),
 * the worker and the PayU/EC2 stand-ins each in a process of their own.
 */

type Ports = {
  app: number;
  /** The outside world's stand-ins (PayU's checkout and control). */
  sandbox: number;
  workerEnv: Record<string, string>;
};
const BURST = Number(process.env.BENCH_BURST ?? 100);
/**
 * The poll load during the burst, in requests per second over BURST_POLL_CONNECTIONS connections: signed-in
 * customers polling every 2 s (the SPA's pace during a transition), 400 of them by default. A
 * saturating load would measure the queue in front of a 2-core machine, not the poll.
 */
const BURST_POLL_RATE = Number(process.env.BENCH_BURST_POLL_RATE ?? 200);
/** Connections for that paced load: autocannon sends each tick's share at once, so 50 would arrive as bursts of 50. */
const BURST_POLL_CONNECTIONS = Number(process.env.BENCH_BURST_POLL_CONNECTIONS ?? 10);

export async function benchBurst(): Promise<void> {
  heading(`Burst: ${BURST} payments completed at once, the dashboard poll paced meanwhile`);
  const database = await startScratchDatabase('bench-burst-', 'bench_burst');
  let child: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  try {
    const seed = await seedSignedInUser(database.url);
    child = spawn(process.execPath, ['scripts/bench/pollServer.ts'], {
      env: { ...process.env, DATABASE_URL: database.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const ports = await firstLine<Ports>(child);
    const base = (port: number) => `http://127.0.0.1:${port}`;
    const cookie = `legend_session=${seed.token}`;
    const pollUrl = `${base(ports.app)}/api/vm/dashboard/${encodeURIComponent(seed.email)}`;
    worker = spawn(process.execPath, ['worker/main.ts'], {
      env: { ...process.env, ...ports.workerEnv },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await burst(database.url, base(ports.app), base(ports.sandbox), pollUrl, cookie);
  } finally {
    for (const running of [worker, child]) {
      if (running && running.exitCode === null) {
        const exited = new Promise((resolve) => running.once('exit', resolve));
        running.kill('SIGTERM');
        await exited;
      }
    }
    await database.stop();
  }
}

/**
 * Bursts: BURST customers pay at the same moment. Each has chosen a plan and reached PayU's
 * (sandbox) checkout through the real API beforehand; then PayU completes all of them at once
 * and posts its webhooks, the web app queues payment-verify, the worker (its own process) asks
 * PayU's verify API and activates each plan. Measured: from the first completion to the last
 * plan active, against one purchase alone in the same run, and the dashboard poll's latency
 * at BURST_POLL_RATE during the burst, against the same poll load at rest just before it.
 */
async function burst(
  databaseUrl: string,
  base: string,
  sandboxBase: string,
  pollUrl: string,
  pollCookie: string,
) {
  const db = await createDbPool(databaseUrl, { maximumPoolSize: 2 });
  try {
    const buyers: Array<{ userId: string; txnid: string }> = [];
    for (let i = 0; i <= BURST; i++) buyers.push(await readyToPay(db, base, sandboxBase, i));
    const activeCount = async (userIds: string[]) =>
      db.oneFirst(sql.type(z.object({ count: z.number() }))`
        SELECT count(*)::int AS count FROM subscriptions
        WHERE user_id = ANY(${sql.array(userIds, 'uuid')}) AND status = 'active'`);
    const payAll = async (group: typeof buyers) => {
      const started = performance.now();
      const replies = await Promise.all(
        group.map((buyer) =>
          fetch(`${sandboxBase}/sandbox/payu/_control`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ action: 'complete', txnid: buyer.txnid, outcome: 'success' }),
          }),
        ),
      );
      const refused = replies.filter((r) => !r.ok).length;
      if (refused) throw new Error(`the sandbox refused ${refused} completions`);
      const ids = group.map((b) => b.userId);
      for (;;) {
        if ((await activeCount(ids)) === group.length) return (performance.now() - started) / 1000;
        if (performance.now() - started > 300_000) {
          const jobs = await db.any(sql.type(
            z.object({ name: z.string(), state: z.string(), n: z.number() }),
          )`
            SELECT name, state, count(*)::int AS n FROM pgboss.job GROUP BY 1, 2 ORDER BY 1, 2`);
          throw new Error(
            `${group.length - (await activeCount(ids))} of ${group.length} plans not active after 5 minutes; ` +
              `jobs: ${jobs.map((j) => `${j.name} ${j.state} ${j.n}`).join(', ')}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    const aloneSeconds = await payAll(buyers.slice(0, 1));
    const pollAt = {
      url: pollUrl,
      connections: BURST_POLL_CONNECTIONS,
      overallRate: BURST_POLL_RATE,
      headers: { cookie: pollCookie },
    };
    // One paced load, warm, timed over two windows: at rest, then while the burst runs.
    const polling = pollLoad({ ...pollAt, duration: 900 });
    let rest: Window, during: Window, burstSeconds: number;
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      polling.start();
      await new Promise((resolve) => setTimeout(resolve, 8_000));
      rest = await polling.end();
      polling.start();
      burstSeconds = await payAll(buyers.slice(1));
      during = await polling.end();
    } finally {
      polling.stop();
    }

    const activated = record('burst', {
      name: `${BURST} payments at once: last plan active after`,
      value: burstSeconds,
      unit: 's',
      baseline: { name: 'one payment alone: plan active after', value: aloneSeconds, unit: 's' },
    });
    const p99 = record('burst', {
      name: 'dashboard poll p99 during the burst',
      value: during.p99,
      unit: 'ms',
      baseline: { name: `dashboard poll p99 at rest, same load`, value: rest.p99, unit: 'ms' },
      detail: {
        rps: during.requests / during.seconds,
        p50Ms: during.p50,
        maxMs: during.max,
        non2xx: during.non2xx,
        restRps: rest.requests / rest.seconds,
        restP50Ms: rest.p50,
        ratePerSecond: BURST_POLL_RATE,
        connections: BURST_POLL_CONNECTIONS,
      },
    });
    console.log(
      `burst: ${BURST} payments completed at once → all active in ${burstSeconds.toFixed(1)} s ` +
        `(one alone: ${aloneSeconds.toFixed(1)} s, ${fmtRatio(activated.ratio)})`,
    );
    console.log(
      `burst: dashboard poll at ${BURST_POLL_RATE} req/s (c=${BURST_POLL_CONNECTIONS}) meanwhile: p50 ${fmtMs(during.p50)}, ` +
        `p99 ${fmtMs(during.p99)}; at rest just before: p50 ${fmtMs(rest.p50)}, p99 ${fmtMs(rest.p99)} (${fmtRatio(p99.ratio)})` +
        (during.non2xx ? `  UNEXPECTED ${during.non2xx} non-2xx` : ''),
    );
  } finally {
    await db.end();
  }
}

/** autocannon in a process of its own (scripts/bench/pollLoad.ts), timed over the windows marked here. */
function pollLoad(options: autocannon.Options) {
  const child = fork('scripts/bench/pollLoad.ts', { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  child.send(options);
  return {
    start: () => child.send('start'),
    end: () =>
      new Promise<Window>((resolve, reject) => {
        const exited = (code: number | null) => reject(new Error(`the poll load exited with ${code}`));
        child.once('exit', exited);
        child.once('message', (window) => {
          child.off('exit', exited);
          resolve(window as Window);
        });
        child.send('end');
      }),
    stop: () => child.send('stop'),
  };
}

/**
 * A signed-in customer who chose a plan and is on PayU's checkout page, through the real API.
 * The browser posts the checkout form to PayU: here the sandbox's process, wherever the
 * configured checkout address says it is.
 */
async function readyToPay(db: DatabasePool, base: string, sandboxBase: string, i: number) {
  const email = `bench.buyer${i}@example.com`;
  const user = await insertUser(db, {
    email,
    name: `Buyer ${i}`,
    phone: `9${String(100_000_000 + i).padStart(9, '0')}`,
    passwordHash: null,
    googleSub: null,
  });
  const token = randomToken();
  await insertSession(db, { userId: user.id, tokenHash: hashToken(token), userAgent: 'bench', ip: null });
  const call = async (path: string, body: unknown) => {
    const response = await fetch(`${base}/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, cookie: `legend_session=${token}` },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return response.json() as Promise<Record<string, string>>;
  };
  await call('/vm/select-vm', { email, plan: 'LEGEND', duration: 45, storage: '115 GB', price: 1 });
  const { action, ...fields } = await call('/vm/create-payment', { customerEmail: email, amount: 1 });
  const checkout = new URL(action!);
  const page = await fetch(`${sandboxBase}${checkout.pathname}${checkout.search}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
    body: new URLSearchParams(fields),
  });
  if (!page.ok) throw new Error(`PayU's checkout answered ${page.status}`);
  return { userId: user.id, txnid: fields.txnid! };
}

function firstLine<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line) as T));
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
  });
}
