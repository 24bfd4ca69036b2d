import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../core/config/config.ts';
import { scratchDir, startScratchDatabase } from '../lib/scratch.ts';
import { summariseProfile } from './cpuProfile.ts';
import { postgresCpuMicros, processCpuMicros } from './processCpu.ts';
import { fmtMs, fmtRatio, heading, median, record } from './lib.ts';
import { POPULATION, seedPollCustomers, type PollCustomer } from './pollCustomers.ts';
import { measurePollPaths } from './pollPaths.ts';

/**
 * `npm run bench -- poll`: the signed-in dashboard poll of three customers against baselines
 * measured in the same run, on the same Postgres, by the same load generator (autocannon, in
 * this process; every server is a process of its own):
 *
 * - the poll of each of three customers (scripts/bench/pollCustomers.ts: no machine; a desk
 *   customer's running machine; a streaming customer's running machine with its health report,
 *   Moonlight pairings, AutoPay and hour notices), among tables of a realistic size (10,000
 *   customers, 50,000 plans, payments and invoices, 20,000 machines and health reports), through
 *   npm start's own web process (scripts/lib/devWeb.ts, with the environment a fresh shell and
 *   npm start give it: NODE_ENV and LOG_LEVEL at their defaults, the access log on stdout, here a
 *   file; the sandbox mounted), first fetch (200) and the browser's revalidation (304); only
 *   Postgres (the bench's own) and the worker are left out. The streaming customer is the
 *   headline: the one whose poll reads every part of the record;
 * - the app's floor: a signed-in GET that reads nothing (the plan catalogue with the session
 *   cookie), so the poll's own work is the difference;
 * - the one-query route: a separate Koa process doing one parameterized unique-key read (a
 *   user by email) on the same Postgres (scripts/bench/pollBaseline.ts);
 * - bare Koa, a separate process answering a constant.
 *
 * Each target is loaded in turn, round after round (interleaved), so a neighbour's burst on a
 * shared machine lands on all of them alike; figures are medians over the rounds. Each one's web
 * CPU per request is its server process's CPU time (from /proc) over the requests it answered;
 * the database's is the whole Postgres server's. Statements per poll are counted in a separate,
 * short run of the web process with a counting patch preloaded, never in the measured one.
 *
 * BENCH_POLL_COMPARE=<checkout> also loads another checkout's web process (its floor and each
 * customer's poll, marked "compare"), e.g. main's before a change.
 *
 * BENCH_POLL_PROFILE=<dir> also takes a CPU profile of the web process under the floor's load and
 * under the poll's (node:inspector, preloaded from scripts/bench/profiler.ts), writes them to <dir>
 * and prints where the time went.
 */

const CONNECTIONS = Number(process.env.BENCH_POLL_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_POLL_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_POLL_ROUNDS ?? 5);
const PROFILE_DIR = process.env.BENCH_POLL_PROFILE;
/**
 * Another checkout of this repository (e.g. main's, before a change): its web process is loaded
 * too, interleaved with the rest, so a change is judged against the code it replaces in the
 * same run and under the same neighbours rather than against a figure from another day.
 */
const COMPARE_DIR = process.env.BENCH_POLL_COMPARE;
/** Sequential polls in the counting run. */
const COUNTED = 200;

const BARE = 'bare Koa';
const ONE_QUERY = 'one-query route';
const FLOOR = 'app floor';
const pollName = (customer: PollCustomer, status: 200 | 304) => `poll ${customer.label} (${status})`;
/** The customer the headline figures are of: the one whose poll reads every part. */
const HEADLINE: PollCustomer['label'] = 'streaming';

type Target = {
  name: string;
  url: string;
  headers: Record<string, string>;
  server: Server;
  /** The poll's customer, when it is a poll. */
  customer?: PollCustomer;
  status?: 200 | 304;
};
type Server = { child: ChildProcess; port: number; pid: number };
type Load = {
  rps: number;
  p50: number;
  p99: number;
  unexpected: number;
  /** The target's server process's CPU per request. */
  webCpu: number;
  /** The database server's CPU per request (null where /proc cannot tell). */
  dbCpu: number | null;
};

export async function benchPoll(): Promise<void> {
  heading(
    `Dashboard poll of three customers vs the app's floor, a one-query route and bare Koa (c=${CONNECTIONS}, interleaved)`,
  );
  console.log(`load average at start: ${loadAverage()}`);
  const database = await startScratchDatabase('bench-poll-', 'bench_poll');
  const dataDir = await scratchDir('bench-poll-app-');
  const servers: Server[] = [];
  const logFile = path.join(dataDir, 'web.log');
  const logFd = openSync(logFile, 'a');
  try {
    const seeding = performance.now();
    const customers = await seedPollCustomers(database.url);
    console.log(
      `tables: ${POPULATION.customers.toLocaleString('en-IN')} customers, ${POPULATION.plans.toLocaleString('en-IN')} plans ` +
        `with their payments and invoices, ${POPULATION.machines.toLocaleString('en-IN')} machines with health reports ` +
        `(seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s)`,
    );
    for (const customer of customers) console.log(`  customer ${customer.label}: ${customer.has}`);
    const cookieOf = (customer: PollCustomer) => `legend_session=${customer.token}`;
    const headline = customers.find((c) => c.label === HEADLINE)!;
    // A fresh shell's environment, as someone typing `npm start` has (no NODE_ENV, no LOG_LEVEL),
    // plus what npm start adds for its web process: the database, the secret and the port.
    const appEnv = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      APP_SECRET: randomBytes(32).toString('base64url'),
    };
    const appConfig = loadConfig(appEnv);
    const startApp = async (execArgv: string[] = [], checkout = '.', dir = dataDir) =>
      startServer(
        path.join(checkout, 'scripts/lib/devWeb.ts'),
        [],
        { ...appEnv, DATA_DIR: dir, PORT: String(await freePort()) },
        logFd,
        PROFILE_DIR ? [...execArgv, '--import', './scripts/bench/profiler.ts'] : execArgv,
      );

    await countStatements(await startApp(['--import', './scripts/bench/countStatements.ts']), customers);

    const bare = await startServer('scripts/bench/pollBaseline.ts', ['bare'], process.env, 'ignore');
    servers.push(bare);
    const oneQuery = await startServer(
      'scripts/bench/pollBaseline.ts',
      ['one-query'],
      { ...process.env, DATABASE_URL: database.url },
      'ignore',
    );
    servers.push(oneQuery);
    const app = await startApp();
    servers.push(app);
    // Its own DATA_DIR: the sandbox keeps its EC2 state there.
    const compareDir = path.join(dataDir, 'compare');
    if (COMPARE_DIR) await mkdir(compareDir);
    const before = COMPARE_DIR ? await startApp([], COMPARE_DIR, compareDir) : undefined;
    if (before) servers.push(before);
    const base = (server: Server) => `http://127.0.0.1:${server.port}`;

    const polls: Target[] = [];
    for (const customer of customers) {
      const url = `${base(app)}/api/vm/dashboard`;
      const headers = { cookie: cookieOf(customer) };
      const first = await fetch(url, { headers });
      if (first.status !== 200) throw new Error(`the poll answered ${first.status}: ${await first.text()}`);
      const etag = first.headers.get('etag');
      if (!etag) throw new Error('the poll sends no ETag');
      polls.push({ name: pollName(customer, 200), url, headers, server: app, customer, status: 200 });
      polls.push({
        name: pollName(customer, 304),
        url,
        headers: { ...headers, 'if-none-match': etag },
        server: app,
        customer,
        status: 304,
      });
    }

    const targets: Target[] = [
      { name: BARE, url: `${base(bare)}/hello`, headers: {}, server: bare },
      {
        name: ONE_QUERY,
        url: `${base(oneQuery)}/user/${encodeURIComponent(headline.email)}`,
        headers: {},
        server: oneQuery,
      },
      // The same guards, session and access log as the poll; a constant body, no database.
      { name: FLOOR, url: `${base(app)}/api/plans`, headers: { cookie: cookieOf(headline) }, server: app },
      ...polls,
      ...(before
        ? [
            {
              name: `${FLOOR} (compare)`,
              url: `${base(before)}/api/plans`,
              headers: { cookie: cookieOf(headline) },
              server: before,
            },
            ...customers.map((customer) => ({
              name: `${pollName(customer, 200)} (compare)`,
              url: `${base(before)}/api/vm/dashboard`,
              headers: { cookie: cookieOf(customer) },
              server: before,
            })),
          ]
        : []),
    ];
    const measure = async (target: Target, seconds: number): Promise<Load> => {
      const web = await processCpuMicros(target.server.pid);
      const db = await postgresCpuMicros(database.dataDir);
      const result = await autocannon({
        url: target.url,
        connections: CONNECTIONS,
        duration: seconds,
        headers: target.headers,
      });
      const webAfter = await processCpuMicros(target.server.pid);
      const dbAfter = await postgresCpuMicros(database.dataDir);
      const requests = Math.max(1, result.requests.total);
      const expected = target.status === 304 ? result['3xx'] : result['2xx'];
      return {
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        // A poll that answers other than expected (a 200 where a 304 was due) is counted too.
        unexpected: requests - expected + result.errors + result.timeouts,
        webCpu: web === null || webAfter === null ? Number.NaN : (webAfter - web) / requests,
        dbCpu: db === null || dbAfter === null ? null : (dbAfter - db) / requests,
      };
    };

    for (const target of targets) await measure(target, 1); // warm-up: JIT, pools, prepared statements
    const logBefore = await lineCount(logFile);
    const loads: string[] = [loadAverage()];
    const runs = new Map<string, Load[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) runs.get(target.name)!.push(await measure(target, SECONDS));
      loads.push(loadAverage());
    }
    const logLines = (await lineCount(logFile)) - logBefore;

    const summary = (name: string) => {
      const all = runs.get(name)!;
      return {
        rps: median(all.map((r) => r.rps)),
        p50: median(all.map((r) => r.p50)),
        p99: median(all.map((r) => r.p99)),
        webCpu: median(all.map((r) => r.webCpu)),
        dbCpu: all.some((r) => r.dbCpu === null) ? null : median(all.map((r) => r.dbCpu ?? 0)),
        unexpected: all.reduce((n, r) => n + r.unexpected, 0),
        rounds: all.map((r) => Math.round(r.rps)),
      };
    };
    const one = summary(ONE_QUERY);
    console.log(
      `servers: each its own process; npm start's web process (NODE_ENV ${appConfig.env}, ` +
        `LOG_LEVEL ${appConfig.logLevel}): ${logLines} access-log lines written during the rounds`,
    );
    console.log(`load average (1, 5, 15 min) after each round: ${loads.slice(1).join(' | ')}`);
    console.log(
      'req/s and latency as the load generator saw them (it shares the machine); ×1-query: req/s over the ' +
        "one-query route's; p99 ×1-q: the one-query route's p99 over the target's (above 1 is faster); CPU/req: " +
        "the server process's own CPU time per request (web) and the whole Postgres server's (DB)",
    );
    console.log(
      `${'target'.padEnd(34)} ${'req/s'.padStart(6)}  ${'p50'.padStart(8)}  ${'p99'.padStart(8)}  ` +
        `${'×1-query'.padStart(8)}  ${'p99 ×1-q'.padStart(8)}  ${'web µs'.padStart(6)}  ${'DB µs'.padStart(6)}  rounds`,
    );
    for (const target of targets) {
      const s = summary(target.name);
      const ratio = record('poll', {
        name: `${target.name} req/s`,
        value: s.rps,
        unit: 'req/s',
        baseline: { name: `${ONE_QUERY} req/s`, value: one.rps, unit: 'req/s' },
        detail: {
          p50Ms: s.p50,
          p99Ms: s.p99,
          p99RatioToOneQuery: one.p99 / s.p99,
          rounds: s.rounds,
          connections: CONNECTIONS,
          seconds: SECONDS,
          customer: target.customer?.has,
          loadAverages: loads,
        },
      }).ratio;
      record('poll', {
        name: `${target.name} web CPU per request`,
        value: s.webCpu,
        unit: 'µs',
        baseline: { name: `${ONE_QUERY} web CPU per request`, value: one.webCpu, unit: 'µs' },
      });
      if (s.dbCpu !== null)
        record('poll', {
          name: `${target.name} database CPU per request`,
          value: s.dbCpu,
          unit: 'µs',
          ...(one.dbCpu !== null
            ? { baseline: { name: `${ONE_QUERY} database CPU per request`, value: one.dbCpu, unit: 'µs' } }
            : {}),
        });
      console.log(
        `${target.name.padEnd(34)} ${s.rps.toFixed(0).padStart(6)}  ${fmtMs(s.p50).padStart(8)}  ${fmtMs(s.p99).padStart(8)}  ` +
          `${fmtRatio(ratio).padStart(8)}  ${fmtRatio(one.p99 / s.p99).padStart(8)}  ${s.webCpu.toFixed(0).padStart(6)}  ` +
          `${s.dbCpu === null ? 'n/a'.padStart(6) : s.dbCpu.toFixed(0).padStart(6)}  ${s.rounds.join('/')}` +
          (s.unexpected ? `  UNEXPECTED ${s.unexpected} answers/errors` : ''),
      );
    }
    const floor = summary(FLOOR);
    const bareSummary = summary(BARE);
    const oneCost = one.webCpu + (one.dbCpu ?? 0);
    for (const customer of customers) {
      const poll = summary(pollName(customer, 200));
      const revalidated = summary(pollName(customer, 304));
      const cost = poll.webCpu + (poll.dbCpu ?? 0);
      console.log(
        `${customer.label === HEADLINE ? 'HEADLINE ' : ''}${customer.label}: poll ÷ one-query ${fmtRatio(poll.rps / one.rps)} ` +
          `(304: ${fmtRatio(revalidated.rps / one.rps)}; target ≥ 0.6×), p99 ${fmtRatio(one.p99 / poll.p99)} ` +
          `(target ≥ 0.5×); web + DB CPU ${cost.toFixed(0)} µs against ${oneCost.toFixed(0)} (${fmtRatio(oneCost / cost)}); ` +
          `the poll's own web work (poll − floor) ${(poll.webCpu - floor.webCpu).toFixed(0)} µs`,
      );
    }
    console.log(
      `floor ÷ one-query ${fmtRatio(floor.rps / one.rps)}; web CPU: the app's guards, session and log ` +
        `(floor − bare Koa) ${(floor.webCpu - bareSummary.webCpu).toFixed(0)} µs; the one-query route's query ` +
        `(one-query − bare Koa) ${(one.webCpu - bareSummary.webCpu).toFixed(0)} µs`,
    );

    await measurePollPaths(database.url, customers);

    if (PROFILE_DIR) {
      await mkdir(PROFILE_DIR, { recursive: true });
      const profiled = targets.filter(
        (t) => t.name === FLOOR || (t.customer?.label === HEADLINE && t.server === app),
      );
      for (const target of profiled) {
        const file = path.resolve(PROFILE_DIR, `${target.name.replace(/\W+/g, '-')}.cpuprofile`);
        target.server.child.send({ profile: 'start' });
        const result = await autocannon({
          url: target.url,
          connections: CONNECTIONS,
          duration: SECONDS,
          headers: target.headers,
        });
        target.server.child.send({ profile: 'stop', file });
        await reply(target.server.child, (m) => 'profiled' in m);
        console.log(`\nCPU profile of the web process under the ${target.name}'s load: ${file}`);
        summariseProfile(JSON.parse(await readFile(file, 'utf8')), result.requests.total);
      }
    }
    console.log(`load average at end: ${loadAverage()}`);
  } finally {
    for (const server of servers) await stop(server.child);
    closeSync(logFd);
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Statements (round trips) and writes per poll, in a short run of its own with the counting patch preloaded. */
async function countStatements(server: Server, customers: PollCustomer[]) {
  try {
    const pollUrl = `http://127.0.0.1:${server.port}/api/vm/dashboard`;
    for (const customer of customers) {
      const headers = { cookie: `legend_session=${customer.token}` };
      for (let i = 0; i < 20; i++) await fetch(pollUrl, { headers }).then((r) => r.arrayBuffer());
      server.child.send({ count: 'start' });
      for (let i = 0; i < COUNTED; i++) await fetch(pollUrl, { headers }).then((r) => r.arrayBuffer());
      server.child.send({ count: 'end' });
      const { counts } = (await reply(server.child, (m) => 'counts' in m)) as {
        counts: { statements: number; writes: number; texts: Record<string, number> };
      };
      const statements = counts.statements / COUNTED;
      const writes = counts.writes / COUNTED;
      console.log(
        `one poll of ${customer.label}: ${statements.toFixed(2)} statements (round trips), ${writes.toFixed(2)} ` +
          `write statements (${COUNTED} sequential polls, counted in a separate run)`,
      );
      for (const [text, n] of Object.entries(counts.texts).sort((a, b) => b[1] - a[1])) {
        console.log(`  ${(n / COUNTED).toFixed(2)}× ${text}`);
      }
      record('poll', {
        name: `statements per poll, ${customer.label}`,
        value: statements,
        unit: 'statements',
      });
      record('poll', {
        name: `write statements per poll, ${customer.label}`,
        value: writes,
        unit: 'statements',
      });
    }
  } finally {
    await stop(server.child);
  }
}

/** Forks a bench server and waits for the `{ port }` it sends once it listens. */
async function startServer(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  stdout: number | 'ignore',
  execArgv: string[] = [],
): Promise<Server> {
  const child = fork(script, args, { env, execArgv, stdio: ['ignore', stdout, 'inherit', 'ipc'] });
  const ready = (await reply(child, (m) => typeof m.port === 'number')) as { port: number };
  return { child, pid: child.pid!, port: ready.port };
}

/** A loopback port free at this moment (npm start gives its web process a port; so does this bench). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return address && typeof address === 'object' ? address.port : 0;
}

function reply(child: ChildProcess, wanted: (message: Record<string, unknown>) => boolean): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`a bench server exited with ${code}`));
    const onMessage = (message: Record<string, unknown>) => {
      if (!wanted(message)) return;
      child.off('message', onMessage);
      child.off('exit', exited);
      resolve(message);
    };
    child.on('message', onMessage);
    child.once('exit', exited);
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function lineCount(file: string): Promise<number> {
  const text = await readFile(file, 'utf8');
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}
