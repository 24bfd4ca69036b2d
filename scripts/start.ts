import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createServer as createTcpServer } from 'node:net';
import path from 'node:path';
import { ConfigError, loadConfig } from '../core/config/config.ts';
import { migrate } from '../core/db/migrate.ts';
import { createLogger, onStopSignals } from '../core/observability/log.ts';
import { SPA_DIR } from '../api/static.ts';
import { SANDBOX_ROUTE53_ZONE } from '../sandbox/route53/index.ts';
import { PostgresStartError, startEmbeddedPostgres, type RunningPostgres } from './lib/postgres.ts';
import { nodeProcess, stopInOrder, supervise, type Supervised } from './lib/supervise.ts';

/**
 * `npm start`: the whole product on one machine. An embedded Postgres under DATA_DIR (unless
 * DATABASE_URL is set), migrations, then the web process (with the sandbox mounted at /sandbox,
 * scripts/lib/devWeb.ts) and the worker as child processes, as the Procfile would run them.
 * A child that crashes is restarted with backoff, and the log says so; five crashes of one
 * within a minute stop everything with one sentence. Ctrl-C stops everything, Postgres included.
 */
const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);

/** Stops with one sentence (no stack trace) for problems the person running this can fix. */
function fail(message: string): never {
  console.error(`\n  ${message}\n`);
  process.exit(1);
}

const bootstrap = (() => {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
})();
const log = createLogger({ level: bootstrap.logLevel, name: 'start' });
if (bootstrap.production) {
  log.fatal('npm start is for development and demos; production runs the Procfile.');
  process.exit(1);
}
const dataDir = path.resolve(bootstrap.dataDir);
try {
  await mkdir(dataDir, { recursive: true });
} catch (error) {
  fail(
    `The data directory ${dataDir} cannot be created (${(error as NodeJS.ErrnoException).code}): set DATA_DIR to a directory you can write.`,
  );
}
// Before anything slow: a port already taken is the most common reason a second start fails.
await assertPortFree(bootstrap.port, bootstrap.host);

// A per-checkout secret, kept with the data, so encrypted rows survive restarts.
const secretFile = path.join(dataDir, 'app-secret');
if (!process.env.APP_SECRET) {
  if (!existsSync(secretFile))
    await writeFile(secretFile, randomBytes(32).toString('base64url'), { mode: 0o600 });
  process.env.APP_SECRET = (await readFile(secretFile, 'utf8')).trim();
}

if (!process.argv.includes('--no-build') && !existsSync(path.join(SPA_DIR, 'index.html'))) {
  log.info('building the web app (first run)…');
  // Always the production bundle, whatever NODE_ENV the shell has.
  await run('npm', ['run', '--silent', 'build'], { ...process.env, NODE_ENV: 'production' });
}

let postgres: RunningPostgres | undefined;
if (!process.env.DATABASE_URL) {
  log.info({ dir: path.join(dataDir, 'postgres') }, 'starting embedded Postgres');
  try {
    // Durable (fsync, synchronous commit, full-page writes): this is where paid orders live.
    // The browser tests' throwaway stacks (NODE_ENV=test) trade that for speed.
    postgres = await startEmbeddedPostgres(path.join(dataDir, 'postgres'), {
      durable: bootstrap.env !== 'test',
    });
  } catch (error) {
    if (error instanceof PostgresStartError) fail(error.message);
    throw error;
  }
  process.env.DATABASE_URL = postgres.url;
  // For the operator scripts (npm run jobs, alerts) against this embedded database:
  // DATABASE_URL=$(cat <DATA_DIR>/database-url). Readable by this user only, as the data is.
  await writeFile(path.join(dataDir, 'database-url'), postgres.url, { mode: 0o600 });
}
const config = loadConfig();
const databaseUrl = process.env.DATABASE_URL as string;
// The sandbox plays Route 53 as it plays EC2: machines get names in its zone unless the
// environment names a zone (an empty MACHINE_DNS_ZONE_ID turns names off). The children read it.
if (config.ec2.mode === 'sandbox' && process.env.MACHINE_DNS_ZONE_ID === undefined) {
  process.env.MACHINE_DNS_ZONE_ID = SANDBOX_ROUTE53_ZONE.id;
  process.env.MACHINE_DNS_SUFFIX ??= SANDBOX_ROUTE53_ZONE.name;
}

const applied = await migrate(databaseUrl, { log: (line) => log.info(line) });
log.info({ applied: applied.length }, 'migrations up to date');

let stopping = false;
let announced = false;
let webPort = config.port;
let ec2PrivateKeyPem = process.env.EC2_PRIVATE_KEY_PEM;

/** Ends everything once: the worker, then the web process, then Postgres. */
async function shutdown(reason: string, code = 0) {
  if (stopping) return;
  stopping = true;
  log.info({ reason }, 'stopping');
  await stopInOrder([worker, web]);
  await postgres?.stop();
  process.exit(code);
}

const giveUp = (sentence: string) => {
  console.error(`\n  ${sentence}\n`);
  shutdown('crash loop', 1).catch((error: unknown) => {
    log.error({ err: error }, 'stopping failed');
    process.exit(1);
  });
};

// The web process (API, SPA and the sandbox at /sandbox) and the worker each run as a child that
// is restarted with backoff when it crashes (scripts/lib/supervise.ts); Postgres keeps running.
let worker: Supervised | undefined;
const web = supervise({
  name: 'web process',
  log,
  start: () => {
    // After a crash the new web process takes the port the first one had (PORT=0 picks one).
    const child = nodeProcess('scripts/lib/devWeb.ts', { ...process.env, PORT: String(webPort) });
    child.on('message', (message: { kind?: string; port?: number; ec2PrivateKeyPem?: string }) => {
      if (message.kind !== 'ready' || typeof message.port !== 'number') return;
      webPort = message.port;
      ec2PrivateKeyPem ??= message.ec2PrivateKeyPem;
      if (!worker) worker = startWorkerProcess();
      if (!announced) announce();
    });
    return child;
  },
  onStart: (child, restarts) => {
    if (restarts > 0) log.warn({ childPid: child.pid, restarts }, 'web process restarted');
    else log.info({ childPid: child.pid }, 'web process started');
  },
  onGiveUp: giveUp,
});

function startWorkerProcess(): Supervised {
  // The worker reaches the sandbox over HTTP on the web process's port.
  return supervise({
    name: 'worker',
    log,
    start: () =>
      nodeProcess('worker/main.ts', {
        ...process.env,
        PORT: String(webPort),
        SANDBOX_URL: `http://127.0.0.1:${webPort}`,
        DATABASE_URL: databaseUrl,
        ...(ec2PrivateKeyPem ? { EC2_PRIVATE_KEY_PEM: ec2PrivateKeyPem } : {}),
      }),
    onStart: (child, restarts) => {
      if (restarts > 0) log.warn({ childPid: child.pid, restarts }, 'worker restarted');
      else log.info({ childPid: child.pid }, 'worker started');
    },
    onGiveUp: giveUp,
  });
}

function announce() {
  announced = true;
  const url = `http://localhost:${webPort}`;
  console.log(
    `\n  Legend Cloud is running at ${url}\n  Sandbox inbox: ${url}/sandbox/mail\n  Ctrl-C stops everything.\n`,
  );
}

onStopSignals(log, (signal) => shutdown(signal));

function portInUse(port: number): string {
  return `Port ${port} is already in use (another npm start?): stop that program or choose another port, e.g. PORT=3001 npm start.`;
}

function listen(target: ReturnType<typeof createTcpServer>, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    target.once('error', reject);
    target.listen(port, host, () => {
      target.off('error', reject);
      resolve();
    });
  });
}

async function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createTcpServer();
  try {
    await listen(probe, port, host);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') fail(portInUse(port));
    throw error;
  }
  await new Promise((resolve) => probe.close(resolve));
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed`)),
    );
  });
}
