import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/observability/log.ts';
import { alive, freePort } from '../../scripts/lib/postgres.ts';
import { stopInOrder, supervise } from '../../scripts/lib/supervise.ts';
import { scratchDir } from '../../scripts/lib/scratch.ts';
import { waitFor } from '../support/stack.ts';

/**
 * `npm start` as a person runs it (scripts/start.ts: embedded Postgres, the web process with the
 * sandbox, the worker), its children killed with SIGKILL as a crash would: each is restarted and
 * the product works again, Postgres never stops; a crash loop stops everything with one
 * sentence; Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops everything.
 */

const dataDir = await scratchDir('launcher-');
afterAll(() => rm(dataDir, { recursive: true, force: true }));

type Launch = {
  child: ChildProcess;
  url: string;
  lines: Array<Record<string, unknown>>;
  stderr: () => string;
  exited: Promise<number | null>;
};

const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) if (child.pid) process.kill(-child.pid, 'SIGKILL');
});

async function launch(): Promise<Launch> {
  const port = await freePort();
  // Its own process group, so a SIGINT to the group reaches every process as Ctrl-C would.
  const child = spawn(process.execPath, ['scripts/start.ts', '--no-build'], {
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  let partial = '';
  const read = (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) {
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
      else stderr += `${line}\n`;
    }
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor('npm start to be ready', () => ready(url), 120_000);
  return { child, url, lines, stderr: () => stderr, exited };
}

async function ready(url: string): Promise<boolean> {
  return fetch(`${url}/readyz`)
    .then((r) => r.ok)
    .catch(() => false);
}

/** The pid of the newest start of `what` ('worker' or 'web process') the launcher logged. */
function newestPid(run: Launch, what: string): number | undefined {
  const started = run.lines.filter(
    (l) => l.name === 'start' && (l.msg === `${what} started` || l.msg === `${what} restarted`),
  );
  return started.at(-1)?.childPid as number | undefined;
}

function postgresPid(): number {
  return Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Kills `what` with SIGKILL and waits for the launcher to start it again; answers the new pid. */
async function crash(run: Launch, what: string): Promise<number> {
  const pid = await waitFor(`the ${what}'s pid`, async () => newestPid(run, what));
  process.kill(pid, 'SIGKILL');
  return waitFor(`the ${what} to be restarted`, async () => {
    const next = newestPid(run, what);
    return next !== undefined && next !== pid && alive(next) ? next : undefined;
  });
}

/** The worker works: a problem report's mail to support reaches the sandbox inbox. */
async function workerWorks(run: Launch, n: number): Promise<void> {
  const title = `launcher check ${n}`;
  const reply = await fetch(`${run.url}/api/report-problem`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: run.url },
    body: JSON.stringify({ title, description: 'after a crash', phoneNumber: '9876543210' }),
  });
  expect(reply.status).toBe(201);
  await waitFor(`the report mail ${n}`, async () => {
    const inbox = await fetch(`${run.url}/sandbox/mail?to=support%40legendcloud.in`);
    const mail = (await inbox.json()) as Array<{ subject: string }>;
    return mail.some((m) => m.subject.includes(title));
  });
}

describe('npm start supervises its processes', () => {
  it('restarts a killed worker or web process, keeps Postgres, and stops on a crash loop', async () => {
    const run = await launch();
    const database = postgresPid();
    let survived = 0;
    for (const what of ['worker', 'web process', 'worker', 'web process', 'worker']) {
      await crash(run, what);
      await waitFor('the web to answer again', () => ready(run.url), 60_000);
      await workerWorks(run, survived);
      expect(alive(database)).toBe(true);
      survived++;
    }
    expect(
      run.lines.filter((l) => String(l.msg).endsWith('exited unexpectedly; restarting it')),
    ).toHaveLength(5);
    console.log(`launcher: ${survived} of 5 crashes survived (SIGKILL of a child), Postgres kept running`);

    // The worker killed as soon as it is back, until the launcher calls it a crash loop.
    const web = newestPid(run, 'web process')!;
    let stopped = false;
    void run.exited.then(() => (stopped = true));
    await waitFor(
      'the launcher to give up',
      async () => {
        const pid = newestPid(run, 'worker');
        if (!stopped && pid && alive(pid)) process.kill(pid, 'SIGKILL');
        return stopped;
      },
      120_000,
    );
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain(
      'The worker crashed 5 times within a minute, so npm start stopped everything',
    );
    expect(alive(web)).toBe(false);
    expect(alive(database)).toBe(false);
  }, 300_000);

  it('stops everything on Ctrl-C', async () => {
    const run = await launch();
    const pids = [postgresPid(), newestPid(run, 'web process')!, newestPid(run, 'worker')!];
    process.kill(-run.child.pid!, 'SIGINT');
    expect(await run.exited).toBe(0);
    await waitFor('every process to end', async () => pids.every((pid) => !alive(pid)));
  }, 180_000);
});

describe('Ctrl-C reaches the children too', () => {
  /** A child that says when its signal handlers are in place; how it stops is `onSignals`. */
  function child(onSignals: string): { start: () => ChildProcess; ready: Promise<void> } {
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    return {
      ready: isReady,
      start: () => {
        const process_ = spawn(
          process.execPath,
          ['-e', `${onSignals}; setInterval(() => {}, 1000); process.send('ready');`],
          { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
        );
        running.add(process_);
        process_.once('message', () => ready());
        process_.once('exit', () => running.delete(process_));
        return process_;
      },
    };
  }

  it('a child that ends on the same Ctrl-C before its turn to stop is no crash, and is not restarted', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const log = createLogger({
      level: 'info',
      name: 'start',
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    // The worker finishes its jobs when told to stop; the web process ends at once on Ctrl-C.
    const worker = child(
      "process.on('SIGINT', () => {}); process.on('SIGTERM', () => setTimeout(() => process.exit(0), 500))",
    );
    const web = child(
      "process.on('SIGINT', () => process.exit(0)); process.on('SIGTERM', () => process.exit(0))",
    );
    const starts = { worker: 0, web: 0 };
    const supervised = [
      supervise({
        name: 'worker',
        log,
        start: worker.start,
        onStart: () => starts.worker++,
        onGiveUp: () => {},
      }),
      supervise({
        name: 'web process',
        log,
        start: web.start,
        onStart: () => starts.web++,
        onGiveUp: () => {},
      }),
    ];
    await Promise.all([worker.ready, web.ready]);
    const pids = supervised.map((s) => s.child()!.pid!);

    // Ctrl-C: the terminal signals every process of the group, npm start's own included.
    for (const pid of pids) process.kill(pid, 'SIGINT');
    await stopInOrder(supervised);

    expect(pids.every((pid) => !alive(pid))).toBe(true);
    expect(lines.filter((l) => String(l.msg).includes('exited unexpectedly'))).toEqual([]);
    expect(lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
    expect(starts).toEqual({ worker: 1, web: 1 });
  });
});
