import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../scripts/lib/postgres.ts';
import { scratchDir } from '../../scripts/lib/scratch.ts';
import { waitFor } from './waitFor.ts';

export type BootedStack = {
  /** Where pages open it: localhost, so the region ping (127.0.0.1) is another origin. */
  baseUrl: string;
  /** Its embedded Postgres, for tests that move a plan's dates or run a sweep now. */
  databaseUrl: string;
  /** Stops it as Ctrl-C does (worker, web, Postgres) and deletes its data dir. */
  stop: () => Promise<void>;
};

/** However loaded the machine, a stack that has not answered in this long will not. */
const READY_TIMEOUT_MS = 150_000;
/** Its shutdown: the worker's jobs end, the web process closes, Postgres checkpoints. */
const STOP_TIMEOUT_MS = 60_000;

/**
 * Boots the real product as `npm start` does (embedded Postgres, migrations, the web process
 * with the sandbox mounted, the worker) on a free port with a fresh data dir, with `env` over
 * the test defaults, and waits until /readyz answers. The browser tests' shared stack is one
 * (tests/support/globalStack.ts); a test file that changes what a whole sandbox does (its
 * timings, its clock) boots one of its own (tests/support/ownStack.ts), so no other file sees it.
 */
export async function bootStack(
  options: { env?: Record<string, string>; name?: string } = {},
): Promise<BootedStack> {
  const dataDir = await scratchDir(`${options.name ?? 'e2e'}-`);
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['scripts/start.ts', '--no-build'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      NODE_ENV: 'test',
      // The page is opened at localhost: the connection check then fetches its endpoint from
      // another origin, with CORS and the CSP's connect-src, as it does against AWS.
      REGION_PING_URL: `http://127.0.0.1:${port}/sandbox/region-ping/ping`,
      ...options.env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const baseUrl = `http://localhost:${port}`;

  async function stop(): Promise<void> {
    child.removeAllListeners('exit');
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGINT');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), STOP_TIMEOUT_MS);
      });
      const outcome = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (outcome === 'late') {
        child.kill('SIGKILL');
        await exited;
        throw new Error(
          `the stack at ${baseUrl} did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGINT and was killed; its Postgres (under ${dataDir}) may still run`,
        );
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  }

  const exitedEarly = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(
        new Error(`the stack at ${baseUrl} exited before it was ready (code ${code}, signal ${signal})`),
      ),
    ),
  );
  try {
    await Promise.race([waitUntilReady(baseUrl), exitedEarly]);
    const databaseUrl = (await readFile(path.join(dataDir, 'database-url'), 'utf8')).trim();
    return { baseUrl, databaseUrl, stop };
  } catch (error) {
    // Not ready: nothing may be left running (or on disk) for a stack no test will use.
    try {
      await stop();
    } catch (stopError) {
      throw new AggregateError([error, stopError], `the stack at ${baseUrl} did not become ready, nor stop`, {
        cause: stopError,
      });
    }
    throw error;
  }
}

async function waitUntilReady(baseUrl: string): Promise<void> {
  await waitFor(
    `the stack at ${baseUrl} to become ready`,
    // A refused connection means it is not listening yet: ask again.
    () =>
      fetch(`${baseUrl}/readyz`).then(
        (response) => response.ok,
        () => false,
      ),
    READY_TIMEOUT_MS,
    200,
  );
}
