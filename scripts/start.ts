import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import path from 'node:path';
import { ConfigError, loadConfig } from '../core/config/config.ts';
import { migrate } from '../core/db/migrate.ts';
import { createLogger } from '../core/observability/log.ts';
import { createApp } from '../api/app.ts';
import { openServices } from '../api/services.ts';
import { SPA_DIR } from '../api/static.ts';
import { createSandbox } from '../sandbox/index.ts';
import { createSandboxEc2, type SandboxEc2 } from '../sandbox/ec2/index.ts';
import { SUNSHINE_API_PORT } from '../core/domain/streaming.ts';
import { DCV_PORT } from '../core/domain/desktop.ts';
import { PostgresStartError, startEmbeddedPostgres, type RunningPostgres } from './lib/postgres.ts';

/**
 * `npm start`: the whole product on one machine. An embedded Postgres under DATA_DIR (unless
 * DATABASE_URL is set), migrations, the web process with the sandbox mounted at /sandbox,
 * and the worker as a child process, exactly as the Procfile would run it. Ctrl-C stops
 * everything, Postgres included.
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
let config = loadConfig();
const databaseUrl = process.env.DATABASE_URL as string;

// The sandbox EC2 keeps its instances (and its key pair) in DATA_DIR across restarts. The
// worker decrypts Windows passwords with that key pair's private key, handed over by env.
let sandboxEc2: SandboxEc2 | undefined;
if (config.sandbox.enabled && config.ec2.mode === 'sandbox') {
  sandboxEc2 = createSandboxEc2({
    profile: config.sandbox.profile,
    stateFile: path.join(dataDir, 'sandbox-ec2.json'),
    defaultKeyName: config.ec2.keyName,
    // Each running machine answers TCP on its (loopback) public IP, so the worker's Remote
    // Desktop probe meets a real socket.
    rdpListener: { port: config.vm.rdpPort },
    // …and runs an Amazon DCV stand-in there, verifying tokens with our API as the image sets
    // DCV's auth-token-verifier to. It speaks HTTP (no certificate to accept), so the browser
    // desktop's link says http unless DCV_WEB_URL says otherwise.
    dcv: { port: DCV_PORT, verifierUrl: `${config.sandbox.url}/api/dcv/auth` },
    // …and Sunshine (Moonlight's host) with the image's health reporter, set up from each
    // machine's user data as the image's boot script does.
    sunshine: { port: SUNSHINE_API_PORT },
    warn: (message) => log.warn(message),
  });
  process.env.EC2_PRIVATE_KEY_PEM ??= sandboxEc2.defaultPrivateKeyPem();
  if (!process.env.DCV_WEB_URL)
    config = { ...config, vm: { ...config.vm, dcvWebUrl: `http://{ip}:${DCV_PORT}/` } };
}

const applied = await migrate(databaseUrl, { log: (line) => log.info(line) });
log.info({ applied: applied.length }, 'migrations up to date');

const services = await openServices(
  config,
  databaseUrl,
  createLogger({ level: config.logLevel, name: 'web' }),
);
const mounts = config.sandbox.enabled
  ? [
      {
        prefix: '/sandbox',
        middleware: createSandbox({
          profile: config.sandbox.profile,
          ...(sandboxEc2 ? { ec2: sandboxEc2 } : {}),
          // The app's sandbox merchant, and PayU's webhook pointed at us as its dashboard would be.
          payu: {
            key: config.payu.key,
            salt: config.payu.salt,
            webhookUrl: `${config.sandbox.url}/api/payu/webhook`,
          },
        }),
      },
    ]
  : [];
const server = createServer(createApp(services, { mounts }).callback());
try {
  await listen(server, config.port, config.host);
} catch (error) {
  await services.close().catch((closing: unknown) => log.error({ err: closing }, 'closing services'));
  await postgres?.stop();
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') fail(portInUse(config.port));
  throw error;
}
const address = server.address();
const port = address && typeof address === 'object' ? address.port : config.port;
const url = `http://localhost:${port}`;

// The worker reaches the sandbox over HTTP on this process's port.
const worker = spawn(process.execPath, ['worker/main.ts'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    PORT: String(port),
    SANDBOX_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: databaseUrl,
  },
});
worker.on('exit', (code, signal) => {
  if (!stopping) {
    log.error({ code, signal }, 'worker exited; stopping');
    void shutdown('worker-exit', 1);
  }
});

console.log(
  `\n  Legend Cloud is running at ${url}\n  Sandbox inbox: ${url}/sandbox/mail\n  Ctrl-C stops everything.\n`,
);

let stopping = false;
async function shutdown(reason: string, exitCode = 0) {
  if (stopping) return;
  stopping = true;
  log.info({ reason }, 'stopping');
  await stopChild(worker);
  await sandboxEc2
    ?.close()
    .catch((error: unknown) => log.error({ err: error }, 'saving the sandbox EC2 state'));
  server.close();
  server.closeAllConnections();
  await services.close().catch((error: unknown) => log.error({ err: error }, 'closing services'));
  await postgres?.stop();
  process.exit(exitCode);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function portInUse(port: number): string {
  return `Port ${port} is already in use (another npm start?): stop that program or choose another port, e.g. PORT=3001 npm start.`;
}

function listen(
  target: Server | ReturnType<typeof createTcpServer>,
  port: number,
  host: string,
): Promise<void> {
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
