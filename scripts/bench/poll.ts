import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { hashToken, randomToken } from '../../core/crypto/crypto.ts';
import { z } from 'zod';
import { createDbPool, sql, type DatabasePool } from '../../core/db/pool.ts';
import { insertSession } from '../../core/db/sessions.ts';
import { insertUser } from '../../core/db/users.ts';
import { insertVm } from '../../core/db/vms.ts';
import { startScratchDatabase } from '../lib/scratch.ts';
import type { Window } from './pollLoad.ts';
import { postgresCpuMicros } from './processCpu.ts';
import { fmtMs, fmtRatio, heading, median, paidLegendPlan, record } from './lib.ts';

/**
 * The signed-in dashboard poll against two baselines measured in the same run, on the same
 * Postgres, by the same load generator: a bare Koa route and a Koa route doing one simple `pg`
 * query. Each target is loaded in turn, round after round (interleaved), so a neighbour's
 * burst on a shared machine lands on all of them alike; figures are medians over the rounds.
 *
 * A third reference is the app's own floor: a signed-in GET of the plan catalogue, which passes
 * the same middleware and session as the poll and reads nothing, so the poll's own work (its
 * query, presenter and ETag) is the difference.
 *
 * The poll goes through the whole web app (request id, headers, origin check, session, body
 * parser, router) with a real session cookie for a user with an active plan and a running
 * machine. It is measured twice: as a first fetch (200 with the body) and as the browser's
 * revalidation of an unchanged record (If-None-Match, answered 304 when the app sends ETags).
 */

const CONNECTIONS = Number(process.env.BENCH_POLL_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_POLL_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_POLL_ROUNDS ?? 5);

/** A signed-in request through the whole app that reads nothing: what the poll costs before its own work. */
const FLOOR = 'app floor (/api/plans)';

type Ports = {
  bare: number;
  oneQuery: number;
  app: number;
  control: number;
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
type Load = {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpuMicrosPerRequest: number;
  /** The database server's CPU per request (null where /proc cannot tell). */
  dbCpuMicrosPerRequest: number | null;
};

export async function benchPoll(): Promise<void> {
  heading(`Dashboard poll vs a bare Koa route and a one-query Koa route (c=${CONNECTIONS}, interleaved)`);
  const database = await startScratchDatabase('bench-poll-', 'bench_poll');
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

    // What one poll costs the database: statements (each one a round trip) and writes.
    const first = await fetch(pollUrl, { headers: { cookie } });
    if (first.status !== 200) throw new Error(`the poll answered ${first.status}: ${await first.text()}`);
    const etag = first.headers.get('etag');
    for (let i = 0; i < 20; i++) await fetch(pollUrl, { headers: { cookie } }).then((r) => r.arrayBuffer());
    await fetch(`${base(ports.control)}/reset`);
    const sampled = 200;
    for (let i = 0; i < sampled; i++)
      await fetch(pollUrl, { headers: { cookie } }).then((r) => r.arrayBuffer());
    const counted = (await (await fetch(`${base(ports.control)}/counts`)).json()) as {
      statements: number;
      writes: number;
      texts: Record<string, number>;
    };
    const statementsPerPoll = counted.statements / sampled;
    const writesPerPoll = counted.writes / sampled;
    console.log(
      `one poll: ${statementsPerPoll.toFixed(2)} statements (round trips), ${writesPerPoll.toFixed(2)} write statements (${sampled} sequential polls)`,
    );
    for (const [text, n] of Object.entries(counted.texts).sort((a, b) => b[1] - a[1])) {
      console.log(`  ${(n / sampled).toFixed(2)}× ${text}`);
    }
    record('poll', { name: 'statements per poll', value: statementsPerPoll, unit: 'statements' });
    record('poll', { name: 'write statements per poll', value: writesPerPoll, unit: 'statements' });

    const targets: Array<{ name: string; url: string; headers: Record<string, string> }> = [
      { name: 'bare Koa route', url: `${base(ports.bare)}/hello`, headers: {} },
      { name: 'Koa + one pg query', url: `${base(ports.oneQuery)}/user/${seed.userId}`, headers: {} },
      // The app's own floor: the same middleware chain and session as the poll, a constant body.
      { name: FLOOR, url: `${base(ports.app)}/api/plans`, headers: { cookie } },
      { name: 'dashboard poll (200)', url: pollUrl, headers: { cookie } },
      ...(etag
        ? [{ name: 'dashboard poll (304)', url: pollUrl, headers: { cookie, 'if-none-match': etag } }]
        : []),
    ];
    if (!etag) console.log('the poll sends no ETag: no 304 figure');

    const cpuMicros = async () =>
      ((await (await fetch(`${base(ports.control)}/`)).json()) as { cpuMicros: number }).cpuMicros;
    const measured = async (target: (typeof targets)[number], seconds: number): Promise<Load> => {
      const before = await cpuMicros();
      const dbBefore = await postgresCpuMicros(database.dataDir);
      const result = await load(target.url, target.headers, seconds);
      const spent = (await cpuMicros()) - before;
      const dbAfter = await postgresCpuMicros(database.dataDir);
      const requests = Math.max(1, result.requests);
      return {
        ...result.load,
        cpuMicrosPerRequest: spent / requests,
        dbCpuMicrosPerRequest: dbBefore === null || dbAfter === null ? null : (dbAfter - dbBefore) / requests,
      };
    };
    for (const target of targets) await measured(target, 1); // warm-up: JIT, pools, prepared statements
    const runs = new Map<string, Load[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) runs.get(target.name)!.push(await measured(target, SECONDS));
    }

    const summary = (name: string) => {
      const all = runs.get(name)!;
      return {
        rps: median(all.map((r) => r.rps)),
        p50: median(all.map((r) => r.p50)),
        p99: median(all.map((r) => r.p99)),
        cpu: median(all.map((r) => r.cpuMicrosPerRequest)),
        dbCpu: all.some((r) => r.dbCpuMicrosPerRequest === null)
          ? null
          : median(all.map((r) => r.dbCpuMicrosPerRequest ?? 0)),
        unexpected: all.reduce((n, r) => n + r.non2xx + r.errors, 0),
        rounds: all.map((r) => Math.round(r.rps)),
      };
    };
    const bare = summary('bare Koa route');
    const oneQuery = summary('Koa + one pg query');
    console.log(
      "req/s and latency are what the load generator saw (it shares the machine); CPU/req is the server process's own time per request, DB the database server's.",
    );
    for (const target of targets) {
      const s = summary(target.name);
      const vsBare = record('poll', {
        name: `${target.name} req/s`,
        value: s.rps,
        unit: 'req/s',
        baseline: { name: 'bare Koa route req/s', value: bare.rps, unit: 'req/s' },
        detail: { p50Ms: s.p50, p99Ms: s.p99, rounds: s.rounds, connections: CONNECTIONS, seconds: SECONDS },
      });
      const cpuVsQuery = record('poll', {
        name: `${target.name} server CPU per request`,
        value: s.cpu,
        unit: 'µs',
        baseline: { name: 'Koa + one pg query server CPU per request', value: oneQuery.cpu, unit: 'µs' },
      });
      const vsQuery = record('poll', {
        name: `${target.name} req/s vs one query`,
        value: s.rps,
        unit: 'req/s',
        baseline: { name: 'Koa + one pg query req/s', value: oneQuery.rps, unit: 'req/s' },
      });
      if (s.dbCpu !== null)
        record('poll', {
          name: `${target.name} database CPU per request`,
          value: s.dbCpu,
          unit: 'µs',
          ...(oneQuery.dbCpu
            ? {
                baseline: {
                  name: 'Koa + one pg query database CPU per request',
                  value: oneQuery.dbCpu,
                  unit: 'µs',
                },
              }
            : {}),
        });
      record('poll', {
        name: `${target.name} p99`,
        value: s.p99,
        unit: 'ms',
        baseline: { name: 'Koa + one pg query p99', value: oneQuery.p99, unit: 'ms' },
      });
      console.log(
        `${target.name.padEnd(22)} ${s.rps.toFixed(0).padStart(6)} req/s  p50 ${fmtMs(s.p50).padStart(8)}  p99 ${fmtMs(s.p99).padStart(8)}` +
          `  ${fmtRatio(vsBare.ratio).padStart(6)} bare  ${fmtRatio(vsQuery.ratio).padStart(6)} one-query` +
          `  CPU/req ${s.cpu.toFixed(0).padStart(4)} µs (${fmtRatio(cpuVsQuery.ratio)})` +
          `  DB ${s.dbCpu === null ? 'n/a' : `${s.dbCpu.toFixed(0).padStart(4)} µs`}` +
          `  rounds ${s.rounds.join('/')}${s.unexpected ? `  UNEXPECTED ${s.unexpected} non-2xx/errors` : ''}`,
      );
    }

    const floor = summary(FLOOR);
    const poll = summary('dashboard poll (200)');
    console.log(
      `the poll's own work (its CPU/req minus the app's floor): ${(poll.cpu - floor.cpu).toFixed(0)} µs; ` +
        `the app's chain and session (floor minus bare Koa): ${(floor.cpu - bare.cpu).toFixed(0)} µs`,
    );

    if (BURST > 0) {
      worker = spawn(process.execPath, ['worker/main.ts'], {
        env: { ...process.env, ...ports.workerEnv },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      await burst(database.url, base(ports.app), base(ports.sandbox), pollUrl, cookie);
    }
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

async function load(
  url: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<{ load: Omit<Load, 'cpuMicrosPerRequest' | 'dbCpuMicrosPerRequest'>; requests: number }> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  // A 304 is the expected answer to a revalidation, not a failure.
  const non2xx = result.non2xx - (result['3xx'] ?? 0);
  return {
    load: {
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx,
      errors: result.errors + result.timeouts,
    },
    requests: result.requests.total,
  };
}

function firstLine<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line) as T));
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
  });
}

/** A user as a real purchase leaves them: active plan, a running machine, a live session. */
async function seedSignedInUser(url: string): Promise<{ userId: string; email: string; token: string }> {
  const db = await createDbPool(url, { maximumPoolSize: 2 });
  try {
    const email = 'bench.poll@example.com';
    const { user, subscription, plan } = await paidLegendPlan(db, {
      email,
      name: 'Bench Poll',
      phone: '9876543210',
    });
    const now = new Date();
    const vm = await insertVm(
      db,
      {
        userId: user.id,
        subscriptionId: subscription.id,
        planId: plan.id,
        instanceType: plan.instanceType,
        storageGb: plan.storageGb,
      },
      now,
    );
    await db.query(sql.unsafe`
      UPDATE vms SET state = 'running', source = 'launch', instance_id = 'i-0bench0poll0000001',
        public_ip = '203.0.113.10', password_encrypted = 'sealed', started_at = now(),
        usage_counted_at = now(), ready_at = now()
      WHERE id = ${vm.id}`);
    const token = randomToken();
    await insertSession(db, { userId: user.id, tokenHash: hashToken(token), userAgent: 'bench', ip: null });
    return { userId: user.id, email, token };
  } finally {
    await db.end();
  }
}
